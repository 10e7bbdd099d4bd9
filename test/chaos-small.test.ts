/**
 * The chaos harness's small default (docs/reliability.md): a seeded sweep of crash points on the
 * memory store and on sqlite, in both crash modes, finds no violation; and each oracle reports a
 * deliberate loss, duplicate, divergence or double decision planted after the crash (a channel
 * message or delivery, a subagent's answer, an A2A task and an MCP task among them), so a clean sweep means
 * something. The full sweep is `npm run chaos -- --full`.
 */
import { describe, expect, it } from "vitest";
import { crashPoint } from "../bench/chaos/crash-point.ts";
import { countMcpRun, countSlot, countTool } from "../bench/chaos/ledger.ts";
import { addTotals, emptyTotals, sweepSeed } from "../bench/chaos/sweep.ts";
import type { Acknowledged } from "../bench/chaos/workload.ts";
import { eventLogName, mcpToolTaskKey } from "../src/base/storage/keys.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";

// Seed 1 runs tool calls, approvals and ticks; a late crash point leaves them all in its logs.
const SEED = 1;

async function lateCrash(tamper: Parameters<typeof crashPoint>[4], seed = SEED): Promise<string[]> {
  const { operations } = await crashPoint("memory", seed, 0);
  const result = await crashPoint("memory", seed, operations - 2, "lost", tamper);
  return result.violations;
}

// Seed 5 hands messages to the inbox channel and delegates to the subagent; seed 4 sends A2A tasks.
const CHANNEL_SEED = 5;
const A2A_SEED = 4;
// Seed 2 calls the chaos tool as MCP tasks.
const MCP_SEED = 2;

/** Rewrites one line of a session's log (the first that `match` finds, in any acknowledged session) with `edit`. */
async function rewriteLine(acknowledged: Acknowledged, storage: StorageDriver, match: string, edit: (line: string) => string): Promise<boolean> {
  for (const sessionId of acknowledged.messages.keys()) {
    const log = eventLogName(sessionId);
    const lines: string[] = [];
    for await (const batch of storage.read(log)) lines.push(...batch);
    const at = lines.findIndex((line) => line.includes(match));
    if (at < 0) continue;
    lines[at] = edit(lines[at]!);
    await storage.deleteLog(log);
    await storage.append(log, lines);
    return true;
  }
  return false;
}

describe("chaos: crash points in process", () => {
  it("a seeded sweep on memory and sqlite finds no violation", async () => {
    const totals = emptyTotals();
    for (const store of ["memory", "sqlite"] as const) {
      for (const seed of [1, 2]) addTotals(totals, await sweepSeed(store, seed, { points: 5, modes: ["lost", "landed"] }));
    }
    expect(totals.failures).toEqual([]);
    expect(totals.points).toBe(40);
    // The sweep had something to check: acknowledged messages, recovered turns, slots.
    expect(totals.checked).toBeGreaterThan(40);
    expect(totals.restartedTurns).toBeGreaterThan(0);
    expect(totals.slots).toBeGreaterThan(0);
    expect(totals.inbound).toBeGreaterThan(0);
    expect(totals.deliveries).toBeGreaterThan(0);
    expect(totals.subagents).toBeGreaterThan(0);
    expect(totals.mcpTasks).toBeGreaterThan(0);
  }, 120_000);
});

describe("chaos: the oracles catch what they are there to catch", () => {
  it("a lost acknowledged message (and the gap it leaves)", async () => {
    const violations = await lateCrash(async (_ledger, acknowledged, storage) => {
      const [sessionId] = acknowledged.messages.keys();
      const log = eventLogName(sessionId!);
      const lines: string[] = [];
      for await (const batch of storage.read(log)) lines.push(...batch);
      const kept = lines.filter((line) => !line.includes('"type":"message.received"'));
      await storage.deleteLog(log);
      await storage.append(log, kept);
    });
    expect(violations.some((v) => v.includes("lost"))).toBe(true);
    expect(violations.some((v) => v.includes("index"))).toBe(true);
  });

  it("a tool body that is not idempotent run twice for one call", async () => {
    const violations = await lateCrash((ledger) => {
      const [callId, entry] = [...ledger.toolRuns].find(([, run]) => run.toolName === "record")!;
      countTool(ledger, callId, entry.toolName);
    });
    expect(violations.some((v) => /\(record, not idempotent\) ran 2 times/.test(v))).toBe(true);
  });

  it("a side effect that left no record", async () => {
    const violations = await lateCrash((ledger) => countTool(ledger, "call_ghost", "record"));
    expect(violations).toContain("tool call call_ghost (record) ran 1 time(s) and left no result");
  });

  it("a follower that saw a line the log does not hold", async () => {
    const violations = await lateCrash((_ledger, acknowledged) => {
      const [lines] = acknowledged.followed.values();
      lines!.push('{"index":999,"type":"ghost"}');
    });
    expect(violations.some((v) => v.includes("a follower received line"))).toBe(true);
  });

  it("an acknowledged approval decision that was never applied", async () => {
    const violations = await lateCrash((_ledger, acknowledged) => {
      const [sessionId] = acknowledged.messages.keys();
      acknowledged.decisions.push({ sessionId: sessionId!, callId: "call_never_parked", decision: "approve" });
    });
    expect(violations.some((v) => v.includes("decision approve on call_never_parked acknowledged, applied as []"))).toBe(true);
  });

  it("a schedule slot fired twice", async () => {
    const violations = await lateCrash((ledger) => {
      const [slot] = ledger.slotRuns.keys();
      const [scheduleId, at] = slot!.split("@");
      countSlot(ledger, scheduleId!, at!);
    });
    expect(violations.some((v) => /schedule slot minutely@.* fired 2 times/.test(v))).toBe(true);
  });

  it("a reminder delivered twice", async () => {
    const violations = await lateCrash(async (_ledger, acknowledged, storage) => {
      const [sessionId] = acknowledged.messages.keys();
      const log = eventLogName(sessionId!);
      const at = await storage.length(log);
      const delivery = (index: number): string => JSON.stringify({ index, type: "message.received", data: { text: "/reply reminded-twice" } });
      // The session's last event again after them, so it still reads as at rest.
      let last = "";
      for await (const batch of storage.read(log, at - 1)) last = batch.at(-1) ?? last;
      const rest = JSON.stringify({ ...(JSON.parse(last) as object), index: at + 2 });
      await storage.append(log, [delivery(at), delivery(at + 1), rest], at);
    });
    expect(violations).toContain("reminder /reply reminded-twice delivered 2 times");
  }, 90_000);

  it("a channel message acknowledged and never received", async () => {
    let planted = "";
    const violations = await lateCrash((_ledger, acknowledged) => {
      const [first] = acknowledged.inbound!;
      planted = `${first!.sessionId}: channel message m5_999 acknowledged, received 0 times`;
      acknowledged.inbound!.push({ sessionId: first!.sessionId, tag: "m5_999" });
    }, CHANNEL_SEED);
    expect(violations).toContain(planted);
  });

  it("a channel event never delivered, and one delivered twice by one host", async () => {
    let sessionId = "";
    const violations = await lateCrash((ledger, acknowledged) => {
      sessionId = acknowledged.inbound![0]!.sessionId;
      ledger.deliveries!.delete(`${sessionId}#1`);
      ledger.deliveries!.get(`${sessionId}#2`)!.hosts.push(0);
    }, CHANNEL_SEED);
    expect(violations).toContain(`${sessionId}: channel event 1 (message.received) never delivered`);
    expect(violations.some((v) => v.startsWith(`${sessionId}: channel event 2 delivered 2 times by host 0`))).toBe(true);
  }, 60_000);

  it("a subagent answer the task call does not carry, and a subagent left running", async () => {
    let rewritten = false;
    const violations = await lateCrash(async (ledger, acknowledged, storage) => {
      rewritten = await rewriteLine(acknowledged, storage, '"type":"subagent.completed"', (line) => line.replace('"result":"sub-', '"result":"other-'));
      ledger.subagentSteps!.set(1, 1);
    }, CHANNEL_SEED);
    expect(rewritten).toBe(true);
    expect(violations.some((v) => /task call .* answered sub-.*, its subagent other-/.test(v))).toBe(true);
    expect(violations).toContain("1 subagent step(s) still running on the recovered host after every session rested");
  });

  it("an A2A task acknowledged that its log and GetTask do not hold", async () => {
    let taskId = "";
    const violations = await lateCrash((_ledger, acknowledged) => {
      const [first] = acknowledged.a2aTasks!;
      taskId = `${first!.contextId}.turn_never`;
      acknowledged.a2aTasks!.push({ taskId, contextId: first!.contextId, tag: first!.tag });
    }, A2A_SEED);
    expect(violations.some((v) => v.includes(`A2A task ${taskId} (`) && v.includes("has no message.received in its turn"))).toBe(true);
    expect(violations.some((v) => v.startsWith(`A2A task ${taskId}: GetTask answered`))).toBe(true);
  });

  it("an MCP task acknowledged that the store no longer holds, and a task body run twice", async () => {
    let gone = "";
    let twice = "";
    const violations = await lateCrash(async (ledger, acknowledged, storage) => {
      const [first, second] = acknowledged.mcpTasks!;
      gone = first!.taskId;
      await storage.delete(mcpToolTaskKey(gone));
      twice = (second ?? first)!.tag;
      countMcpRun(ledger, twice);
    }, MCP_SEED);
    expect(violations.some((v) => v.startsWith(`MCP task ${gone} (`) && v.includes("tasks/get answered"))).toBe(true);
    expect(violations.some((v) => v.includes(`MCP task tool body for ${twice} (not idempotent) ran 2 times`))).toBe(true);
  });
});
