/**
 * Deploy-safe sessions under `agent-serve dev` (docs/design/deploy-safe-sessions.md,
 * docs/design/dev-reload.md): a call parked for approval when a reload changes its tool's schema
 * is re-validated by the reloaded host and ends with an `action.result` error saying the
 * definition changed; the session's next turn records the new agent version.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { killAfterEach, spawnCli, waitForOutput } from "./_cli.ts";
import { scratchDir, writeFiles } from "./_cli-io.ts";
import { gatedTool } from "./_deploy-projects.ts";
import { type TestEvent, eventually, fetchEvents, postJson } from "./_harness.ts";

const running = killAfterEach();
const { dir: scratch, env } = scratchDir("deploy-safe-dev");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const versions = (events: TestEvent[]): unknown[] => events.filter((e) => e.type === "turn.started").map((e) => e.data["agentVersion"]);

test("a reload that changes a parked call's tool ends the call with a clear error; the next turn runs on the new version", async () => {
  const root = mkdtempSync(join(tmpdir(), "agent-serve-deploy-dev-"));
  const project = join(root, "gate");
  writeFiles(project, { "bot/instructions.md": "Gatekeeper.\n", "bot/tools/danger.ts": gatedTool("what", "deleted") });
  try {
    const proc = spawnCli(["dev", project, "--port", "0", "--no-docs", "--log-level", "warn"], env);
    running.push(proc);
    const url = `${(await waitForOutput(proc, /agent-serve listening on (http:\/\/\S+)/))[1]}/gate`;
    const created = await fetch(`${url}/v1/session`, postJson({ message: `/tool danger {"what":"prod"}\n/reply carried on` }));
    expect(created.status).toBe(200);
    const { sessionId, continuationToken } = (await created.json()) as { sessionId: string; continuationToken: string };
    const parked = await eventually(async () => {
      const events = await fetchEvents(url, sessionId);
      return events.some((e) => e.type === "action.approval_requested") ? events : undefined;
    }, 15_000, "a parked call");
    const callId = parked.find((e) => e.type === "action.approval_requested")!.data["callId"] as string;
    const [before] = versions(parked);

    writeFileSync(join(project, "bot/tools/danger.ts"), gatedTool("target", "deleted"));
    await waitForOutput(proc, /reloaded after changes to .*bot\/tools\/danger\.ts/, 20_000);

    const events = await eventually(async () => {
      const all = await fetchEvents(url, sessionId);
      return all.at(-1)?.type === "session.waiting" ? all : undefined;
    }, 15_000, "the resumed turn to settle");
    const result = events.slice(parked.length).find((e) => e.type === "action.result")!;
    expect(result.data).toMatchObject({ toolCallId: callId, toolName: "danger", isError: true });
    expect(result.data["output"]).toMatch(/^not run: the agent's definition changed while this call waited for approval, and its input no longer validates/);
    expect((await fetch(`${url}/v1/session/${sessionId}/approvals/${callId}`, postJson({ decision: "approve" }))).status).toBe(409);

    const next = await fetch(`${url}/v1/session/${sessionId}`, postJson({ continuationToken, message: "/reply next" }));
    expect(next.status).toBe(200);
    const after = await eventually(async () => {
      const all = await fetchEvents(url, sessionId);
      return all.filter((e) => e.type === "session.waiting").length === 2 ? all : undefined;
    }, 15_000, "the next turn");
    const [first, second] = versions(after);
    expect(first).toBe(before);
    expect(second).toMatch(/^av_[0-9a-f]{16}$/);
    expect(second).not.toBe(before);
    proc.child.kill("SIGTERM");
    expect((await proc.exited).code).toBe(0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 90_000);
