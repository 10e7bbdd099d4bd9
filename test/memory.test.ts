/**
 * `agent-serve/memory` (docs/design/agent-sdk-compatibility.md): `init` scaffolds the journal hook
 * and a Memory section; each finished turn becomes one line of memory/journal.jsonl.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../src/host/host.ts";
import { memoryHook } from "../src/entries/memory.ts";
import type { MemoryRecord } from "../src/entries/memory.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { run, scratchDir } from "./_cli-io.ts";
import { project, quietLogger } from "./_harness.ts";

const { dir: scratch, env } = scratchDir("memory");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("memoryHook", () => {
  it("init scaffolds it, and finished turns land in memory/journal.jsonl", async () => {
    expect((await run(["init", "diary"], { env, cwd: scratch })).code).toBe(0);
    const dir = join(scratch, "diary");
    expect(readFileSync(join(dir, "bot/hooks/memory.ts"), "utf8")).toContain('import { memoryHook } from "agent-serve/memory"');
    expect(readFileSync(join(dir, "bot/instructions.md"), "utf8")).toContain("## Memory");
    expect((await run(["validate", dir], { env })).code).toBe(0);
    const ok = await run(["run", dir, "--message", "/reply noted"], { env });
    expect(ok.stdout).toContain("noted");
    const failed = await run(["run", dir, "--message", "/fail upstream down"], { env });
    expect(failed.code).not.toBe(0);
    const lines = readFileSync(join(dir, "memory/journal.jsonl"), "utf8").trimEnd().split("\n");
    const records = lines.map((line) => JSON.parse(line) as MemoryRecord);
    expect(records).toEqual([
      {
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        sessionId: expect.stringMatching(/^ses_/),
        channelId: "http",
        status: "completed",
        title: null,
        userMessage: "/reply noted",
        result: "noted",
        usage: { inputTokens: expect.any(Number), outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      expect.objectContaining({ status: "failed", userMessage: "/fail upstream down", result: "upstream down" }),
    ]);
  });

  it("writes to a backend passed in, with the session title and the final reply after tool steps", async () => {
    const records: MemoryRecord[] = [];
    const host = createHost({
      agents: [
        {
          slug: "m",
          storage: createMemoryStorage(),
          project: project({ hooks: { memory: memoryHook({ backend: { append: (record) => records.push(record) } }) } }),
        },
      ],
      logger: quietLogger,
      drainTimeoutMs: 50,
    });
    try {
      const post = (body: unknown): Promise<Response> =>
        host.request("/m/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      await post({ message: "/tool missing_tool {}\n/reply after a tool", title: "Planning" });
      await expect.poll(() => records.length, { timeout: 5000 }).toBe(1);
      expect(records[0]).toMatchObject({ title: "Planning", userMessage: "/tool missing_tool {}\n/reply after a tool", result: "after a tool", status: "completed" });
    } finally {
      await host.close();
    }
  });
});
