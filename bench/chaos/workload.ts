/**
 * The chaos harness's workload, deterministic from a seed: sessions created and followed live,
 * follow-ups that preempt or queue behind running turns, calls of tools that are and are not
 * idempotent, calls parked for approval and decided, one-shot reminders armed by the model, and
 * the clock moved a minute at a time so schedules and reminders fire, messages handed to a custom
 * channel's route, A2A messages sent as tasks, turns that delegate to a subagent, and MCP tool
 * calls run as tasks, against one host. It records what the host acknowledged (a 200 means the
 * message or decision was committed, a tick's report means the slot was handled:
 * docs/design/foundation.md "Guarantees") and what every follower received, and tolerates every
 * failure once the store has crashed.
 * @module
 */
import type { AgentHost } from "../../src/host/types.ts";
import { AGENT, CHANNEL, MCP_TOOL, SUBAGENT } from "./project.ts";

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
  /**
   * Messages the inbox channel's route answered 200, with the session it named. Absent where the
   * run had no such step (a served project without the channel: ./kill.ts).
   */
  inbound?: Array<{ sessionId: string; tag: string }>;
  /** A2A tasks a `SendMessage` answered with (the task id is the turn id, the context the session). */
  a2aTasks?: Array<{ taskId: string; contextId: string; tag: string }>;
  /** MCP tool tasks a task-augmented `tools/call` answered with, and the tag their call charges. */
  mcpTasks?: Array<{ taskId: string; tag: string }>;
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

/** What the subagent answers starts with. */
export const SUBAGENT_REPLY = "sub-";

const a2a = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body: JSON.stringify(body) });

/** An MCP JSON-RPC request of the 2026-07-28 revision from a client that declares the Tasks extension. */
export function mcpRequest(id: string | number, method: string, params: Record<string, unknown>): RequestInit {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "chaos", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  return {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }),
  };
}

/** One message of the workload: a reply, a sleep then a reply, tool calls, or a gated call. */
function message(next: () => number, tag: string): string {
  const pick = next();
  if (pick < 0.2) return `/reply ${tag}`;
  if (pick < 0.35) return `/sleep ${Math.floor(next() * 5)}\n/reply ${tag}`;
  if (pick < 0.47) return `/tool record {"tag":"${tag}"}\n${tag}`;
  if (pick < 0.55) return `/tool lookup {"tag":"${tag}"}\n${tag}`;
  if (pick < 0.65) return `/tool record {"tag":"${tag}"}\n/tool lookup {"tag":"${tag}"}\n/tool record {"tag":"${tag}b"}\n${tag}`;
  if (pick < 0.77) return `/tool reminders_create {"purpose":"${tag}","prompt":"/reply ${REMINDED}${tag}","delay":"30s"}\n${tag}`;
  if (pick < 0.87) return `/tool task {"subagent":"${SUBAGENT}","prompt":"/sleep ${Math.floor(next() * 3)}\\n/reply ${SUBAGENT_REPLY}${tag}"}\n${tag}`;
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
  const inbound: NonNullable<Acknowledged["inbound"]> = (acknowledged.inbound = []);
  const a2aTasks: NonNullable<Acknowledged["a2aTasks"]> = (acknowledged.a2aTasks = []);
  const mcpTasks: NonNullable<Acknowledged["mcpTasks"]> = (acknowledged.mcpTasks = []);
  let conversations = 0;
  const contexts: string[] = [];
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
      } else if (pick < 0.35) {
        // A message handed to the inbox channel's route: a new conversation, or one already open.
        const tag = `m${seed}_${tags++}`;
        const text = message(next, tag);
        const conversation = conversations > 0 && next() < 0.5 ? Math.floor(next() * conversations) : conversations++;
        const response = await host.request(`/${AGENT}/v1/channels/${CHANNEL}/messages`, post({ conversation: `c${conversation}`, text }));
        if (response.status !== 200 || stop()) {
          await response.body?.cancel();
          continue;
        }
        const { sessionId } = (await response.json()) as { sessionId: string };
        if (stop()) continue;
        inbound.push({ sessionId, tag });
        const tagged = acknowledged.messages.get(sessionId);
        if (tagged) tagged.push(tag);
        else {
          acknowledged.messages.set(sessionId, [tag]);
          const lines: string[] = [];
          acknowledged.followed.set(sessionId, lines);
          follow(host, sessionId, lines, readers);
        }
      } else if (pick < 0.45) {
        // An A2A message sent as a task, answered at once: a new context, or a turn of one already open.
        const tag = `m${seed}_${tags++}`;
        const text = message(next, tag);
        const contextId = contexts.length > 0 && next() < 0.4 ? contexts[Math.floor(next() * contexts.length)] : undefined;
        const response = await host.request(
          `/${AGENT}/v1/a2a`,
          a2a({
            jsonrpc: "2.0",
            id: tag,
            method: "SendMessage",
            params: { message: { messageId: `a2a-${tag}`, role: "ROLE_USER", parts: [{ text }], ...(contextId ? { contextId } : {}) }, configuration: { returnImmediately: true } },
          }),
        );
        if (response.status !== 200 || stop()) {
          await response.body?.cancel();
          continue;
        }
        const answer = (await response.json()) as { result?: { task?: { id: string; contextId: string } } };
        const task = answer.result?.task;
        if (!task || stop()) continue;
        a2aTasks.push({ taskId: task.id, contextId: task.contextId, tag });
        if (!contexts.includes(task.contextId)) contexts.push(task.contextId);
        acknowledged.messages.set(task.contextId, [...(acknowledged.messages.get(task.contextId) ?? []), tag]);
      } else if (pick < 0.52) {
        // A non-idempotent tool called as an MCP task: acknowledged when the host answers with the task.
        const tag = `m${seed}_${tags++}`;
        const response = await host.request(`/${AGENT}/v1/mcp`, mcpRequest(tag, "tools/call", { name: "call_tool", arguments: { name: MCP_TOOL, input: { tag } } }));
        if (response.status !== 200 || stop()) {
          await response.body?.cancel();
          continue;
        }
        const answer = (await response.json()) as { result?: { resultType?: string; taskId?: string } };
        if (answer.result?.resultType !== "task" || !answer.result.taskId || stop()) continue;
        mcpTasks.push({ taskId: answer.result.taskId, tag });
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
