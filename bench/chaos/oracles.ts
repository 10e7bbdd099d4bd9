/**
 * What must hold after every recovery (docs/design/foundation.md "Guarantees"): no acknowledged
 * message lost, event indexes contiguous, every turn closed and every session at rest, and no
 * tool body that is not idempotent run twice for one call (docs/design/tools.md "Side effects and
 * crashes"). Each check returns the violations it found, as text.
 * @module
 */
import type { AgentHost } from "../../src/host/types.ts";
import type { Acknowledged } from "./workload.ts";

interface Event {
  index: number;
  type: string;
  turnId?: string;
  data: Record<string, unknown>;
}

const SETTLED = new Set(["session.waiting", "session.completed", "session.failed"]);

async function events(host: AgentHost, sessionId: string): Promise<Event[] | undefined> {
  const response = await host.request(`/chaos/v1/session/${sessionId}/events`);
  if (response.status !== 200) {
    await response.body?.cancel();
    return undefined;
  }
  return (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line) as Event);
}

/** Waits for every acknowledged session to rest (recovered turns, or turns queued behind them, finish). */
async function settled(host: AgentHost, sessionIds: readonly string[], timeoutMs: number): Promise<Map<string, Event[] | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = new Map<string, Event[] | undefined>();
    for (const sessionId of sessionIds) all.set(sessionId, await events(host, sessionId));
    const resting = [...all.values()].every((log) => log === undefined || SETTLED.has(log.at(-1)?.type ?? ""));
    if (resting || Date.now() > deadline) return all;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The violations found, and how many turns recovery closed (proof it had something to do). */
export interface Verdict {
  violations: string[];
  restartedTurns: number;
}

export async function checkOracles(host: AgentHost, acknowledged: Acknowledged, toolRuns: ReadonlyMap<string, number>): Promise<Verdict> {
  const violations: string[] = [];
  let restartedTurns = 0;
  const logs = await settled(host, [...acknowledged.messages.keys()], 5_000);
  for (const [sessionId, tags] of acknowledged.messages) {
    const log = logs.get(sessionId);
    if (!log) {
      violations.push(`${sessionId}: an acknowledged session is gone`);
      continue;
    }
    const received = new Set(log.filter((e) => e.type === "message.received").map((e) => String(e.data["text"])));
    for (const tag of tags) {
      if (![...received].some((text) => text.includes(tag))) violations.push(`${sessionId}: acknowledged message ${tag} lost`);
    }
    log.forEach((event, i) => {
      if (event.index !== i) violations.push(`${sessionId}: index ${event.index} at position ${i}`);
    });
    if (!SETTLED.has(log.at(-1)?.type ?? "")) violations.push(`${sessionId}: not at rest (last event ${log.at(-1)?.type})`);
    restartedTurns += log.filter((e) => e.type === "turn.failed" && e.data["message"] === "host restarted").length;
    const open = new Set<string>();
    for (const event of log) {
      if (!event.turnId) continue;
      if (event.type === "turn.started" || event.type === "turn.queued") open.add(event.turnId);
      if (event.type === "turn.completed" || event.type === "turn.failed") open.delete(event.turnId);
    }
    for (const turnId of open) violations.push(`${sessionId}: turn ${turnId} never ended`);
  }
  for (const [callId, runs] of toolRuns) if (runs > 1) violations.push(`tool call ${callId} ran ${runs} times`);
  return { violations, restartedTurns };
}
