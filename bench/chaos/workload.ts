/**
 * The chaos harness's workload, deterministic from a seed: sessions created, follow-ups that
 * preempt or queue behind running turns, and tool calls, against one host. It records what the
 * host acknowledged (a 200 means the message was committed: docs/design/foundation.md
 * "Guarantees") and tolerates every failure once the store has crashed.
 * @module
 */
import type { AgentHost } from "../../src/host/types.ts";

/** A small, seeded PRNG (mulberry32): the same seed gives the same workload. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Acknowledged {
  /** Session id to the tagged messages the host acknowledged for it. */
  messages: Map<string, string[]>;
}

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** One message of the workload: a reply, a short sleep then a reply, or a tool call. */
function message(next: () => number, tag: string): string {
  const pick = next();
  if (pick < 0.4) return `/reply ${tag}`;
  if (pick < 0.7) return `/sleep ${Math.floor(next() * 5)}\n/reply ${tag}`;
  return `/tool record {"tag":"${tag}"}\n${tag}`;
}

export async function runWorkload(host: AgentHost, seed: number, stop: () => boolean): Promise<Acknowledged> {
  const next = random(seed);
  const acknowledged: Acknowledged = { messages: new Map() };
  const sessions: Array<{ sessionId: string; continuationToken: string }> = [];
  let tags = 0;
  const steps = 6 + Math.floor(next() * 6);
  for (let step = 0; step < steps && !stop(); step++) {
    const tag = `m${seed}_${tags++}`;
    const text = message(next, tag);
    try {
      const existing = sessions.length > 0 && next() < 0.5 ? sessions[Math.floor(next() * sessions.length)] : undefined;
      if (existing) {
        const response = await host.request(`/chaos/v1/session/${existing.sessionId}`, post({ continuationToken: existing.continuationToken, message: text }));
        if (response.status === 200) acknowledged.messages.get(existing.sessionId)?.push(tag);
        else await response.body?.cancel();
      } else {
        const response = await host.request("/chaos/v1/session", post({ message: text }));
        if (response.status !== 200) {
          await response.body?.cancel();
          continue;
        }
        const created = (await response.json()) as { sessionId: string; continuationToken: string };
        sessions.push(created);
        acknowledged.messages.set(created.sessionId, [tag]);
      }
    } catch {
      // A crashed store fails requests: what was acknowledged before is what the oracles check.
    }
    if (next() < 0.5) await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 3)));
  }
  return acknowledged;
}
