/**
 * The done-when project (test/fixtures/agent-sdk-project): written for the Agent SDK (imports
 * from `@cursor/bdk`, `/tools`, `/hooks`, `/memory`, `/channels`, `/extensions`; a `grok-4.5` model with
 * effort and fast params; tools on `host.kv`; an extension), it validates, serves, answers a
 * scripted turn and runs its tools over loopback, unchanged.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEnv, killAfterEach, runCli, startServe } from "./_cli.ts";
import type { CliProcess } from "./_cli.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-sdk-fixture-"));
const dir = join(scratch, "notes");
cpSync(new URL("./fixtures/agent-sdk-project", import.meta.url), dir, { recursive: true });
const env = cliEnv(join(scratch, "config"));
const running: CliProcess[] = killAfterEach();
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const postJson = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** Reads an NDJSON stream until `session.waiting`, then cancels it. */
async function untilWaiting(response: Response): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes('"type":"session.waiting"')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return text.trim().split("\n").map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
}

describe("an Agent SDK project, unchanged", () => {
  it("validates with --dir", async () => {
    const result = await runCli(["validate", "--dir", dir], env);
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe("ok: 1 project, 0 errors, 2 warnings");
    // The default allowlist offers shell without local.sandbox, and without an xAI credential
    // grok-4.5 runs on the scripted model, as serve says below.
    expect(result.stdout).toContain("warning [unsandboxed_shell]");
    expect(result.stdout).toMatch(/warning \[scripted_model_fallback\] .*grok-4\.5.*XAI_API_KEY.*scripted model/);
    expect(result.stdout).toContain("channel inbox: POST");
    expect(result.code).toBe(0);
  });

  it("serves: a scripted turn runs its kv tools and its extension, direct calls see the same kv, the journal records the turn", async () => {
    const server = await startServe(["--dir", dir, "--port", "0", "--mode", "single"], env);
    running.push(server);
    expect(server.stdout() + server.stderr()).toMatch(/grok-4\.5.*xai credential.*scripted model/);
    const base = server.url;

    const info = (await (await fetch(`${base}/v1/info`)).json()) as {
      model: { id: string; params: Record<string, string> };
      tools: Array<{ name: string; effect: string | null; dryRun: boolean }>;
      extensions: Array<{ namespace: string; tools: string[] }>;
      hooks: string[];
    };
    expect(info.model).toMatchObject({ id: "scripted", params: { effort: "high", fast: "true" } });
    expect(info.tools.map((tool) => tool.name)).toEqual(["list_notes", "read_note", "save_note", "stopwatch__start", "stopwatch__stop"]);
    expect(info.tools.find((tool) => tool.name === "save_note")).toMatchObject({ effect: "write", dryRun: true });
    expect(info.extensions).toMatchObject([{ namespace: "stopwatch", tools: ["stopwatch__start", "stopwatch__stop"], channels: ["stopwatch__laps"] }]);
    expect(info.hooks).toEqual(["memory", "metrics"]);

    const message = ['/tool save_note {"topic":"Deploys","text":"Fridays are frozen"}', '/tool stopwatch__start {"label":"deploy"}', "/reply saved"].join("\n");
    const created = (await (await fetch(`${base}/v1/session`, postJson({ message, title: "Notes" }))).json()) as { sessionId: string };
    const events = await untilWaiting(await fetch(`${base}/v1/session/${created.sessionId}/stream`));
    const results = events.filter((event) => event.type === "action.result").map((event) => event.data);
    expect(results).toEqual([
      expect.objectContaining({ toolName: "save_note", isError: false, output: { saved: "Deploys", bytes: 18 } }),
      expect.objectContaining({ toolName: "stopwatch__start", isError: false, output: { started: "deploy" } }),
    ]);
    expect(events.find((event) => event.type === "message.completed" && event.data.finishReason === "stop")?.data.text).toBe("saved");

    const call = async (tool: string, input: unknown): Promise<Record<string, unknown>> => (await fetch(`${base}/v1/tools/${tool}`, postJson({ input }))).json() as Promise<Record<string, unknown>>;
    expect(await call("read_note", { topic: "deploys" })).toMatchObject({ ok: true, isError: false, result: { text: "Fridays are frozen", by: expect.any(String) } });
    expect(await call("list_notes", {})).toMatchObject({ result: { topics: ["deploys"] } });
    expect(await call("stopwatch__stop", { label: "deploy" })).toMatchObject({ isError: false, result: { label: "deploy", unit: "ms", elapsed: expect.any(Number) } });
    // zod validates the input before execute runs.
    const invalid = await fetch(`${base}/v1/tools/save_note`, postJson({ input: { topic: "" } }));
    expect(invalid.status).toBe(400);

    // Its channel (host.kv in a route handler, send into a conversation per topic) and the
    // extension's channel, mounted as stopwatch__laps.
    const filed = (await (await fetch(`${base}/v1/channels/inbox/notes`, postJson({ topic: "Oncall", text: "Ana this week" }))).json()) as { sessionId: string; count: number };
    expect(filed.count).toBe(1);
    const inboxEvents = await untilWaiting(await fetch(`${base}/v1/session/${filed.sessionId}/stream`));
    expect(inboxEvents.find((event) => event.type === "action.result")?.data).toMatchObject({ toolName: "save_note", isError: false });
    expect(await (await fetch(`${base}/v1/channels/inbox/count`)).json()).toEqual({ count: 1 });
    expect(await call("read_note", { topic: "oncall" })).toMatchObject({ result: { text: "Ana this week" } });
    await call("stopwatch__start", { label: "lunch" });
    expect(await (await fetch(`${base}/v1/channels/stopwatch__laps/lunch`)).json()).toEqual({ label: "lunch", running: true });

    await expect
      .poll(() => {
        try {
          return readFileSync(join(dir, "memory", "journal.jsonl"), "utf8");
        } catch {
          return "";
        }
      }, { timeout: 5000 })
      .toContain('"result":"saved"');
    const record = JSON.parse(readFileSync(join(dir, "memory", "journal.jsonl"), "utf8").trim().split("\n")[0]!) as Record<string, unknown>;
    expect(record).toMatchObject({ sessionId: created.sessionId, channelId: "http", status: "completed", title: "Notes", userMessage: message, result: "saved" });
  });
});
