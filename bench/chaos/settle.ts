/**
 * Waiting for the recovered host's sessions to rest before the oracles judge them
 * (docs/reliability.md "Oracles"): every stored session is polled until its log ends at rest,
 * what is parked for approval is approved (a user coming back), and a deadline bounds the wait.
 *
 * A session still busy at the deadline is watched for a late window more. One that rests in it was
 * not stuck, only slow: it is reported apart, as settled late and after how long, and judged on
 * its log at rest; one that never rests is judged as it stands, and fails (docs/design/chaos-seed28.md).
 * @module
 */
import { eventLogName, sessionIdOfRecordKey } from "../../src/base/storage/keys.ts";
import type { StorageDriver } from "../../src/base/storage/types.ts";
import type { AgentHost } from "../../src/host/types.ts";
import { AGENT } from "./project.ts";
import type { Acknowledged } from "./workload.ts";

/** How long the sessions get to rest, and how long one still busy then is watched before it is judged stuck. */
export interface SettleOptions {
  settleMs?: number;
  /** 0: no late window, a session busy at the deadline is judged as it stands. */
  lateMs?: number;
}

export const SETTLE_MS = 15_000;
export const LATE_MS = 60_000;

export const SETTLED = new Set(["session.waiting", "session.completed", "session.failed"]);

/** The type of a log's last event ("" for an empty log). */
export const lastType = (lines: readonly string[]): string => (lines.length > 0 ? (JSON.parse(lines.at(-1)!) as { type: string }).type : "");

const atRest = (lines: readonly string[]): boolean => lines.length === 0 || SETTLED.has(lastType(lines));

async function storedLines(storage: StorageDriver, sessionId: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const batch of storage.read(eventLogName(sessionId))) lines.push(...batch);
  return lines;
}

/**
 * Waits for every acknowledged or stored session to rest, or `timeoutMs`, deciding what is still
 * parked for approval (approve) so parked turns finish too; those decisions are acknowledged as
 * well. `rested` gets the time each session was first seen at rest.
 */
export async function settle(host: AgentHost, storage: StorageDriver, acknowledged: Acknowledged, timeoutMs: number, rested?: Map<string, number>): Promise<Map<string, string[]>> {
  const deadline = Date.now() + timeoutMs;
  // Every stored session, acknowledged or not: a create cut by the crash after its commit must rest too.
  const stored = (await storage.list("sessions/")).map(sessionIdOfRecordKey).filter((id): id is string => id !== undefined);
  const sessionIds = [...new Set([...acknowledged.messages.keys(), ...stored])];
  for (;;) {
    const all = new Map<string, string[]>();
    let resting = true;
    for (const sessionId of sessionIds) {
      const lines = await storedLines(storage, sessionId);
      all.set(sessionId, lines);
      if (atRest(lines)) {
        if (rested && !rested.has(sessionId)) rested.set(sessionId, performance.now());
        continue;
      }
      resting = false;
      const listed = await host.request(`/${AGENT}/v1/session/${sessionId}/approvals`);
      const { approvals } = (await listed.json()) as { approvals?: Array<{ callId: string }> };
      for (const { callId } of approvals ?? []) {
        const response = await host.request(`/${AGENT}/v1/session/${sessionId}/approvals/${encodeURIComponent(callId)}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ decision: "approve" }),
        });
        await response.body?.cancel();
        if (response.status === 200) acknowledged.decisions.push({ sessionId, callId, decision: "approve" });
      }
    }
    if (resting || Date.now() > deadline) return all;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * {@link settle} within `settleMs`, then, for the sessions still busy, the late window: each that
 * rests in it is added to `late` (`phase` says which wait it was) and the logs returned are the
 * ones read after it.
 */
export async function settleOrLate(host: AgentHost, storage: StorageDriver, acknowledged: Acknowledged, options: SettleOptions, late: string[], phase = ""): Promise<Map<string, string[]>> {
  const settleMs = options.settleMs ?? SETTLE_MS;
  const lateMs = options.lateMs ?? LATE_MS;
  const started = performance.now();
  const logs = await settle(host, storage, acknowledged, settleMs);
  const busy = [...logs].filter(([, lines]) => !atRest(lines));
  if (busy.length === 0 || lateMs <= 0) return logs;
  const rested = new Map<string, number>();
  const later = await settle(host, storage, acknowledged, lateMs, rested);
  for (const [sessionId, lines] of busy) {
    const at = rested.get(sessionId);
    if (at === undefined) continue;
    late.push(`${sessionId}: settled late${phase}, after ${((at - started) / 1000).toFixed(1)} s (at the ${settleMs / 1000} s deadline its last event was ${lastType(lines)})`);
  }
  return later;
}
