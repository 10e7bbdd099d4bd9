/**
 * The chaos harness's workload, deterministic from a seed: sessions created and followed live,
 * follow-ups that preempt or queue behind running turns, calls of tools that are and are not
 * idempotent, calls parked for approval and decided, one-shot reminders armed by the model, and
 * the clock moved a minute at a time so schedules and reminders fire, against one host. It records what the host acknowledged (a 200 means the
 * message or decision was committed, a tick's report means the slot was handled:
 * docs/design/foundation.md "Guarantees") and what every follower received, and tolerates every
 * failure once the store has crashed.
 * @module
 */
import type { AgentHost } from "../../src/host/types.ts";
import { AGENT } from "./project.ts";

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

export interface Decision {
  sessionId: string;
  callId: string;
  decision: "approve" | "deny";
}

export interface Acknowledged {
  /** Session id to the tagged messages the host acknowledged for it. */
  messages: Map<string, string[]>;
  /** Session id to every line its live follower received, as received. */
  followed: Map<string, string[]>;
  /** Approval decisions answered 200. */
  decisions: Decision[];
  /** Schedule slots a tick reported fired, as `<scheduleId>@<slot>`. */
  slots: Set<string>;
  /** Reminders a tick reported fired, by id. */
  reminders: Set<string>;
  /** Ends the live followers (the harness's own cleanup, not part of the run). */
  stopFollowers(): void;
}

/** The workload's clock, shared by every host of a crash point: minutes pass only when it ticks. */
export interface Clock {
  now: number;
}

export const T0 = Date.parse("2026-03-02T09:00:30.000Z");
export const MINUTE = 60_000;

const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** What a reminder's message starts with, so the oracle can count its deliveries. */
export const REMINDED = "reminded-";

/** One message of the workload: a reply, a sleep then a reply, tool calls, or a gated call. */
function message(next: () => number, tag: string): string {
  const pick = next();
  if (pick < 0.25) return `/reply ${tag}`;
  if (pick < 0.4) return `/sleep ${Math.floor(next() * 5)}\n/reply ${tag}`;
  if (pick < 0.55) return `/tool record {"tag":"${tag}"}\n${tag}`;
  if (pick < 0.65) return `/tool lookup {"tag":"${tag}"}\n${tag}`;
  if (pick < 0.75) return `/tool record {"tag":"${tag}"}\n/tool lookup {"tag":"${tag}"}\n/tool record {"tag":"${tag}b"}\n${tag}`;
  if (pick < 0.82) return `/tool reminders_create {"purpose":"${tag}","prompt":"/reply ${REMINDED}${tag}","delay":"30s"}\n${tag}`;
  return `/tool gated {"tag":"${tag}"}\n${tag}`;
}

/** Reads a session's live stream into `into`, line by line as bytes arrive, until it ends or fails. */
function follow(host: AgentHost, sessionId: string, into: string[], readers: Array<ReadableStreamDefaultReader<Uint8Array>>): void {
  void (async () => {
    const response = await host.request(`/${AGENT}/v1/session/${sessionId}/stream`);
    if (response.status !== 200 || !response.body) return;
    const reader = response.body.getReader();
    readers.push(reader);
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        into.push(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
      }
    }
  })().catch(() => {});
}

export async function runWorkload(host: AgentHost, seed: number, clock: Clock, stop: () => boolean): Promise<Acknowledged> {
  const next = random(seed);
  const readers: Array<ReadableStreamDefaultReader<Uint8Array>> = [];
  const acknowledged: Acknowledged = {
    messages: new Map(),
    followed: new Map(),
    decisions: [],
    slots: new Set(),
    reminders: new Set(),
    stopFollowers: () => {
      for (const reader of readers) void reader.cancel().catch(() => {});
    },
  };
  const sessions: Array<{ sessionId: string; continuationToken: string }> = [];
  let tags = 0;
  const steps = 8 + Math.floor(next() * 8);
  for (let step = 0; step < steps && !stop(); step++) {
    const pick = next();
    try {
      if (pick < 0.1) {
        clock.now += MINUTE;
        const reports = await host.tick();
        // An answer that arrives after the crash was never heard: a dead process sends nothing.
        if (stop()) break;
        for (const report of reports) {
          for (const firing of report.schedules) acknowledged.slots.add(`${firing.scheduleId}@${firing.slot}`);
          for (const id of report.reminders) acknowledged.reminders.add(id);
        }
      } else if (pick < 0.25 && sessions.length > 0) {
        const { sessionId } = sessions[Math.floor(next() * sessions.length)]!;
        const decision = next() < 0.7 ? "approve" : "deny";
        const listed = await host.request(`/${AGENT}/v1/session/${sessionId}/approvals`);
        const { approvals } = (await listed.json()) as { approvals?: Array<{ callId: string }> };
        for (const { callId } of approvals ?? []) {
          const response = await host.request(`/${AGENT}/v1/session/${sessionId}/approvals/${encodeURIComponent(callId)}`, post({ decision }));
          await response.body?.cancel();
          if (response.status === 200 && !stop()) acknowledged.decisions.push({ sessionId, callId, decision });
        }
      } else {
        const tag = `m${seed}_${tags++}`;
        const text = message(next, tag);
        const existing = sessions.length > 0 && next() < 0.5 ? sessions[Math.floor(next() * sessions.length)] : undefined;
        if (existing) {
          const response = await host.request(`/${AGENT}/v1/session/${existing.sessionId}`, post({ continuationToken: existing.continuationToken, message: text }));
          await response.body?.cancel();
          if (response.status === 200 && !stop()) acknowledged.messages.get(existing.sessionId)?.push(tag);
        } else {
          const response = await host.request(`/${AGENT}/v1/session`, post({ message: text }));
          if (response.status !== 200 || stop()) {
            await response.body?.cancel();
            continue;
          }
          const created = (await response.json()) as { sessionId: string; continuationToken: string };
          sessions.push(created);
          acknowledged.messages.set(created.sessionId, [tag]);
          const lines: string[] = [];
          acknowledged.followed.set(created.sessionId, lines);
          follow(host, created.sessionId, lines, readers);
        }
      }
    } catch {
      // A crashed store fails requests: what was acknowledged before is what the oracles check.
    }
    if (next() < 0.5) await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 3)));
  }
  return acknowledged;
}
