/**
 * `dev` reloads the project when its files change: a changed tool, instructions or
 * agent config serve at once; sessions carry on (a follow-up after the reload continues the same
 * conversation) and open streams stay open across the reload, NDJSON and SSE alike, delivering the
 * next turns with no gap and no duplicate; a turn running during a reload finishes before the
 * swap; a broken file keeps the last good version serving with the diagnostic printed, and fixing
 * it reloads again.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventSource } from "eventsource";
import { afterAll, describe, expect, it } from "vitest";
import { killAfterEach, spawnCli, waitForOutput } from "./_cli.ts";
import { scratchDir, writeFiles } from "./_cli-io.ts";
import { type TestEvent, postJson, readEvents } from "./_harness.ts";

const running = killAfterEach();
/** Turns run in a child process on a shared machine: give them time. */
const POLL = { timeout: 15_000 };
const { dir: scratch, env } = scratchDir("dev-reload");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const tool = (word: string): string =>
  `import { defineTool } from "agent-serve/tools";\nimport { suffix } from "../lib/suffix.ts";\nexport default defineTool({ description: "Says ${word}", execute: () => "${word}" + suffix });\n`;

interface Info {
  tools: Array<{ name: string; description: string }>;
  diagnostics: Array<{ code: string; message: string }>;
}

describe("dev reload", () => {
  it("reloads tools, helpers and instructions without dropping sessions; a broken file keeps the last good version", async () => {
    const root = mkdtempSync(join(tmpdir(), "agent-serve-reload-"));
    const project = join(root, "bot-one");
    writeFiles(project, {
      "bot/instructions.md": "Version one.\n",
      "bot/tools/say.ts": tool("one"),
      "bot/lib/suffix.ts": `export const suffix = "!";\n`,
    });
    try {
      const proc = spawnCli(["dev", project, "--port", "0", "--no-docs", "--log-level", "warn"], env);
      running.push(proc);
      const url = `${(await waitForOutput(proc, /agent-serve listening on (http:\/\/\S+)/))[1]}/bot-one`;
      const info = async (): Promise<Info> => (await (await fetch(`${url}/v1/info`)).json()) as Info;
      const say = async (): Promise<unknown> => ((await (await fetch(`${url}/v1/tools/say`, postJson({ input: {} }))).json()) as { result: unknown }).result;
      expect(await say()).toBe("one!");

      const created = (await (await fetch(`${url}/v1/session`, postJson({ message: "/reply before" }))).json()) as { sessionId: string; continuationToken: string };
      const stream = await fetch(`${url}/v1/session/${created.sessionId}/stream`);
      const before = await readEvents(stream, (event) => event.type === "session.waiting");

      // A helper the tool imports changes: the whole module graph loads afresh.
      writeFileSync(join(project, "bot/tools/say.ts"), tool("two"));
      writeFileSync(join(project, "bot/lib/suffix.ts"), `export const suffix = "?";\n`);
      await waitForOutput(proc, /reloaded after changes to .*bot\/tools\/say\.ts/);
      expect(await say()).toBe("two?");
      expect((await info()).tools.find((t) => t.name === "say")?.description).toBe("Says two");

      // The session carries on after the reload: same conversation, its stream resumes where it was.
      const followed = await fetch(`${url}/v1/session/${created.sessionId}`, postJson({ message: "/reply after", continuationToken: created.continuationToken }));
      expect(followed.status).toBe(200);
      const resumed = await readEvents(await fetch(`${url}/v1/session/${created.sessionId}/stream?startIndex=${before.length}`), (event) => event.type === "session.waiting");
      expect(resumed[0]?.index).toBe(before.length);
      expect(resumed.some((event) => event.type === "message.completed" && event.data["text"] === "after")).toBe(true);

      // A broken file: the diagnostic is printed, and the last good version keeps serving.
      writeFileSync(join(project, "bot/tools/say.ts"), `export default defineTool({ description: ;\n`);
      await expect.poll(() => proc.stderr(), { timeout: 10_000 }).toMatch(/error \[\w+\] bot-one: bot\/tools\/say\.ts/);
      await waitForOutput(proc, /reloaded after changes to .*; bot-one still on the last good version/);
      expect(await say()).toBe("two?");
      expect((await info()).diagnostics).toContainEqual(expect.objectContaining({ code: "last_good_version", message: expect.stringContaining("serving the last good version: bot/tools/say.ts") }));

      // Fixed: the next change reloads it; instructions count too.
      writeFileSync(join(project, "bot/tools/say.ts"), tool("three"));
      await expect.poll(async () => say(), { timeout: 10_000 }).toBe("three?");
      expect((await info()).diagnostics.some((d) => d.code === "last_good_version")).toBe(false);

      proc.child.kill("SIGTERM");
      expect((await proc.exited).code).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("keeps open NDJSON and SSE streams across reloads, lets a running turn finish first, and survives a broken edit", async () => {
    const root = mkdtempSync(join(tmpdir(), "agent-serve-reload-"));
    const project = join(root, "bot-two");
    writeFiles(project, {
      "bot/instructions.md": "Version one.\n",
      "bot/tools/say.ts": tool("one"),
      "bot/lib/suffix.ts": `export const suffix = "!";\n`,
    });
    let source: EventSource | undefined;
    const ndjson = new AbortController();
    try {
      const proc = spawnCli(["dev", project, "--port", "0", "--no-docs", "--log-level", "warn"], env);
      running.push(proc);
      const url = `${(await waitForOutput(proc, /agent-serve listening on (http:\/\/\S+)/))[1]}/bot-two`;
      const created = (await (await fetch(`${url}/v1/session`, postJson({ message: "/reply before" }))).json()) as { sessionId: string; continuationToken: string };
      let token = created.continuationToken;
      const send = async (message: string): Promise<void> => {
        const response = await fetch(`${url}/v1/session/${created.sessionId}`, postJson({ message, continuationToken: token }));
        expect(response.status).toBe(200);
        token = ((await response.json()) as { continuationToken: string }).continuationToken;
      };

      // One NDJSON stream and one EventSource, both opened before any reload and never reopened.
      const lines: TestEvent[] = [];
      let ndjsonEnded = false;
      const response = await fetch(`${url}/v1/session/${created.sessionId}/stream`, { signal: ndjson.signal });
      void (async () => {
        const decoder = new TextDecoder();
        let buffer = "";
        for await (const chunk of response.body!) {
          buffer += decoder.decode(chunk, { stream: true });
          for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
            if (newline > 0) lines.push(JSON.parse(buffer.slice(0, newline)) as TestEvent);
            buffer = buffer.slice(newline + 1);
          }
        }
        ndjsonEnded = true;
      })().catch(() => {});
      const sse: Array<{ id: string; type: string }> = [];
      let opens = 0;
      source = new EventSource(`${url}/v1/session/${created.sessionId}/stream`);
      source.addEventListener("open", () => opens++);
      source.addEventListener("message", (event) => sse.push({ id: event.lastEventId, type: (JSON.parse(event.data as string) as TestEvent).type }));
      const completedTexts = (): unknown[] => lines.filter((e) => e.type === "message.completed").map((e) => e.data["text"]);
      await expect.poll(completedTexts, POLL).toEqual(["before"]);

      // A turn is running when the tool changes: the reload waits for it, and it finishes.
      await send("/sleep 4000\n/reply slow");
      await expect.poll(() => lines.some((e) => e.type === "turn.started" && e.index > 3), POLL).toBe(true);
      writeFileSync(join(project, "bot/tools/say.ts"), tool("two"));
      await waitForOutput(proc, /reload waits for 1 running turn to finish/);
      await waitForOutput(proc, /reloaded after changes to .*bot\/tools\/say\.ts/);
      expect(completedTexts()).toEqual(["before", "slow"]);
      expect(lines.some((e) => e.type === "turn.failed")).toBe(false);

      // After the reload, the same open streams carry the next turn, which runs the new tool.
      await send("/tool say {}");
      await expect.poll(() => lines.filter((e) => e.type === "session.waiting").length, POLL).toBe(3);
      expect(JSON.stringify(lines.find((e) => e.type === "action.result"))).toContain(`"output":"two!"`);

      // A broken edit: the last good version serves, and the streams still stay open.
      writeFileSync(join(project, "bot/tools/say.ts"), `export default defineTool({ description: ;\n`);
      await waitForOutput(proc, /reloaded after changes to .*; bot-two still on the last good version/);
      await send("/reply still here");
      await expect.poll(() => completedTexts().at(-1), POLL).toBe("still here");
      await expect.poll(() => lines.at(-1)?.type, POLL).toBe("session.waiting");

      // Gapless and without duplicates, on one connection each.
      expect(lines.map((e) => e.index)).toEqual(lines.map((_, i) => i));
      expect(ndjsonEnded).toBe(false);
      await expect.poll(() => sse.filter((e) => e.type === "message.completed").length, POLL).toBe(completedTexts().length);
      expect(opens).toBe(1);
      await expect.poll(() => sse.length, POLL).toBe(lines.length);
      expect(sse.map((e) => Number(e.id))).toEqual(lines.map((e) => e.index));

      proc.child.kill("SIGTERM");
      expect((await proc.exited).code).toBe(0);
    } finally {
      source?.close();
      ndjson.abort();
      rmSync(root, { recursive: true, force: true });
    }
  }, 90_000);
});
