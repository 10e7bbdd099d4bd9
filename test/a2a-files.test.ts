/**
 * File parts on A2A messages (docs/design/a2a-files.md), sent through the official SDK client and
 * as raw JSON-RPC: bytes (`raw`) are kept as artifacts of kind `attachment` with their content, a
 * text file is written into the session's workspace before the turn, a `url` is recorded as an
 * artifact and never fetched by the server, and the agent's message names each file; the 0.3 file
 * part shape is taken too; a project whose declared artifact kinds lack `attachment` refuses file
 * parts with ContentTypeNotSupported before anything changes.
 */
import { readFileSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLocalRuntime } from "../loader/runtime.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineArtifacts } from "../src/entries/artifacts.ts";
import { helloOptions, project } from "./_harness.ts";
import { clientFor, rpc, serve, textOf } from "./_a2a.ts";

const root = mkdtempSync(join(tmpdir(), "a2a-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const b64 = (text: string | Uint8Array): string => Buffer.from(text).toString("base64");
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);

interface ArtifactRow {
  id: string;
  kind: string;
  key: string;
  title: string;
  data: Record<string, unknown>;
  hasContent: boolean;
}

describe("A2A file parts", () => {
  it("keeps bytes and URLs as attachments, writes text files into the workspace, and tells the agent", async () => {
    // A receiver that would see the server fetch the URL: it must not.
    let fetched = 0;
    const remote = createServer((_request, response) => {
      fetched++;
      response.end("x");
    });
    await new Promise<void>((resolve) => remote.listen(0, "127.0.0.1", resolve));
    const remoteUrl = `http://127.0.0.1:${(remote.address() as { port: number }).port}/report.pdf`;
    const stateRoot = join(root, "state");
    const host = await serve(helloOptions({ agents: [{ slug: "hello", project: project(), storage: createMemoryStorage(), runtime: createLocalRuntime({ stateRoot }) }] }));
    try {
      const client = await clientFor(`${host.url}/hello`);
      const sent = await client.sendMessage({
        tenant: "",
        message: {
          messageId: "msg-files",
          contextId: "",
          taskId: "",
          role: 1,
          parts: [
            { content: { $case: "text", value: "please read these" }, filename: "", mediaType: "", metadata: undefined },
            { content: { $case: "raw", value: Buffer.from("name,total\nann,3\n") }, filename: "totals.csv", mediaType: "text/csv", metadata: undefined },
            { content: { $case: "raw", value: Buffer.from(png) }, filename: "logo.png", mediaType: "image/png", metadata: undefined },
            { content: { $case: "url", value: remoteUrl }, filename: "report.pdf", mediaType: "application/pdf", metadata: undefined },
          ],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        },
        configuration: undefined,
        metadata: undefined,
      } as never);
      if (!("id" in sent)) throw new Error("expected a Task");
      const contextId = sent.contextId;

      // The agent read of each file in its message (the scripted model echoes what it was sent).
      const reply = textOf(sent.status?.message);
      expect(reply).toContain("[attached file 1-totals.csv (text/csv, 17 bytes), in the workspace at attachments/1-totals.csv");
      expect(reply).toContain("[attached file 2-logo.png (image/png, 12 bytes);");
      expect(reply).toContain(`[attached file 3-report.pdf (application/pdf) at ${remoteUrl}`);

      const listed = (await (await fetch(`${host.url}/hello/v1/artifacts?sessionId=${contextId}`)).json()) as { artifacts: ArtifactRow[] };
      const byKey = new Map(listed.artifacts.map((row) => [row.key, row]));
      expect(byKey.get("msg-files/1-totals.csv")).toMatchObject({ kind: "attachment", hasContent: true, data: { mediaType: "text/csv", size: 17 } });
      expect(byKey.get("msg-files/3-report.pdf")).toMatchObject({ kind: "attachment", hasContent: false, data: { url: remoteUrl } });
      const logo = byKey.get("msg-files/2-logo.png")!;
      const content = await fetch(`${host.url}/hello/v1/artifacts/${logo.id}/content`);
      expect(content.headers.get("content-type")).toBe("image/png");
      expect(new Uint8Array(await content.arrayBuffer())).toEqual(png);

      // The text file is in the session's workspace; the binary one is not.
      expect(readFileSync(join(stateRoot, "workspaces", contextId, "attachments", "1-totals.csv"), "utf8")).toBe("name,total\nann,3\n");
      expect(fetched).toBe(0);

      // A 0.3 client's file part, on a follow-up in the same context.
      const legacy = await rpc(`${host.url}/hello/v1/a2a`, {
        jsonrpc: "2.0",
        id: 2,
        method: "message/send",
        params: { message: { kind: "message", messageId: "legacy-file", role: "user", contextId, parts: [{ kind: "file", file: { bytes: b64("hello"), name: "note.txt", mimeType: "text/plain" } }] } },
      }, { "a2a-version": "0.3" });
      expect(JSON.stringify(legacy.body["result"])).toContain("attached file 0-note.txt (text/plain, 5 bytes)");
      const again = (await (await fetch(`${host.url}/hello/v1/artifacts?sessionId=${contextId}`)).json()) as { artifacts: ArtifactRow[] };
      expect(again.artifacts.map((row) => row.key)).toContain("legacy-file/0-note.txt");
    } finally {
      await host.close();
      await new Promise<void>((resolve) => remote.close(() => resolve()));
    }
  });

  it("refuses file parts with ContentTypeNotSupported when the declared kinds lack attachment, changing nothing", async () => {
    const artifacts = defineArtifacts({ kinds: { report: { description: "A finished report" } } });
    const host = await serve(helloOptions({ agents: [{ slug: "hello", project: project({ artifacts }), storage: createMemoryStorage() }] }));
    try {
      const answer = await rpc(`${host.url}/hello/v1/a2a`, {
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "see file" }, { raw: b64("x"), filename: "x.txt", mediaType: "text/plain" }] } },
      });
      expect(answer.body["error"]).toMatchObject({ code: -32005 });
      const sessions = (await (await fetch(`${host.url}/hello/v1/sessions`)).json()) as { sessions: unknown[] };
      expect(sessions.sessions).toEqual([]);
    } finally {
      await host.close();
    }
  });
});
