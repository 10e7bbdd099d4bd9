/**
 * A2A on a shared store (docs/guide/a2a.md "Streaming", "Cancelling"): two `agent-serve serve`
 * processes on one Redis. A task sent to one is read, followed to completion and cancelled
 * through the other, because every answer is read from the session's log and the session
 * operations reach the process holding the turn.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv, startServe, type CliProcess } from "./_cli.ts";
import { type RedisServer, REDIS_MISSING, REDIS_SERVER, startRedisServer } from "./_redis-server.ts";
import { tempProjects } from "./_temp-projects.ts";
import { clientFor, stateOf, userMessage } from "./_a2a.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-a2a-redis-"));
const env = cliEnv(join(scratch, "config"), { AGENT_SERVE_LEASE_TTL_MS: "1500" });
const project = tempProjects("a2a-redis");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const immediately = { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true };

describe.skipIf(!REDIS_SERVER)(`A2A across two serve processes on one Redis${REDIS_MISSING}`, () => {
  let redis: RedisServer;
  let processes: Array<CliProcess & { url: string }>;
  let slug: string;

  beforeAll(async () => {
    redis = await startRedisServer();
    const dir = project({ "bot/agent.ts": `import { defineAgent } from "agent-serve";\nexport default defineAgent({ name: "Shared", tools: [] });\n` });
    slug = basename(dir);
    const args = (i: number) => [dir, "--port", "0", "--storage", redis.url, "--state-root", join(scratch, `state-${i}`), "--allow-anonymous", "--no-docs"];
    processes = await Promise.all([0, 1].map((i) => startServe(args(i), env)));
  }, 60_000);
  afterAll(async () => {
    for (const p of processes ?? []) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
      await p.exited;
    }
    await redis?.close();
  });

  it("sent to one process, followed to completion and read through the other", async () => {
    const first = await clientFor(`${processes[0]!.url}/${slug}`);
    const second = await clientFor(`${processes[1]!.url}/${slug}`);
    const task = await first.sendMessage({ tenant: "", message: userMessage("/sleep 400\n/reply from the other process"), configuration: immediately, metadata: undefined });
    if (!("id" in task)) throw new Error("expected a Task");
    const states: TaskState[] = [];
    for await (const frame of second.resubscribeTask({ tenant: "", id: task.id })) {
      const state = stateOf(frame);
      if (state !== undefined) states.push(state);
    }
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const read = await second.getTask({ tenant: "", id: task.id, historyLength: undefined });
    expect(read.status?.message?.parts[0]?.content).toEqual({ $case: "text", value: "from the other process" });
    const listed = await second.listTasks({ tenant: "", contextId: task.contextId, status: 0, pageSize: undefined, pageToken: "", historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: undefined });
    expect(listed.tasks.map((item) => item.id)).toEqual([task.id]);
  }, 30_000);

  it("a task running on one process is cancelled through the other", async () => {
    const first = await clientFor(`${processes[0]!.url}/${slug}`);
    const second = await clientFor(`${processes[1]!.url}/${slug}`);
    const task = await first.sendMessage({ tenant: "", message: userMessage("/sleep 20000\n/reply never"), configuration: immediately, metadata: undefined });
    if (!("id" in task)) throw new Error("expected a Task");
    const deadline = Date.now() + 10_000;
    while ((await second.getTask({ tenant: "", id: task.id, historyLength: undefined })).status?.state !== TaskState.TASK_STATE_WORKING) {
      if (Date.now() > deadline) throw new Error("the task never started");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const canceled = await second.cancelTask({ tenant: "", id: task.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  }, 30_000);
});
