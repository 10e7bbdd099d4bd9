/**
 * The oracles of the work that lands through other doors than the session routes
 * (docs/reliability.md "Workload additions"), run on the recovered host once everything rests:
 *
 * - channel ingress: a message the inbox channel's route answered 200 for is one
 *   `message.received` of the session it named, exactly once;
 * - channel delivery: every event of a session the inbox channel owns reached its `events` handler
 *   at least once, as the event the log holds, never twice from one host, and at most the one event
 *   in flight at the crash twice across it (the cursor is stored after each handled event:
 *   docs/guide/channels.md "Events and delivery");
 * - subagents: each `subagent.called` is followed in its turn by one `subagent.completed`, or its
 *   turn failed (the host restarted under it); the `task` call's result is the subagent's answer;
 *   no subagent step is left running on the recovered host;
 * - A2A: each task a `SendMessage` answered with reaches a terminal state that `GetTask` and the
 *   session log agree on (docs/guide/a2a.md "The mapping");
 * - MCP tool tasks: each task a task-augmented `tools/call` answered with reaches a terminal state
 *   on the recovered host (`completed` with the tool's result, or `failed` when the crash cut its
 *   runner: docs/design/mcp-tool-tasks.md "Crash and restart"), the non-idempotent body never
 *   runs twice for one task, and a completed task's body ran exactly once.
 * Each check returns the violations it found, as text, and counts what it checked.
 * @module
 */
import type { AgentHost } from "../../src/host/types.ts";
import type { Ledger } from "./ledger.ts";
import { AGENT, CHANNEL, charged } from "./project.ts";
import type { Acknowledged } from "./workload.ts";
import { mcpRequest, REMINDED } from "./workload.ts";

interface Event {
  index: number;
  type: string;
  turnId?: string;
  data: Record<string, unknown>;
}

export interface LandingCounts {
  /** Channel messages checked as received exactly once. */
  inbound: number;
  /** Channel-owned events checked as delivered. */
  deliveries: number;
  /** Events delivered by both the crashed and the recovered host (at least once, not exactly once). */
  redeliveries: number;
  /** Subagent calls checked. */
  subagents: number;
  /** A2A tasks checked against GetTask. */
  a2aTasks: number;
  /** MCP tool tasks checked against tasks/get and the ledger. */
  mcpTasks: number;
}

export const noLandings = (): LandingCounts => ({ inbound: 0, deliveries: 0, redeliveries: 0, subagents: 0, a2aTasks: 0, mcpTasks: 0 });

const parse = (lines: readonly string[]): Event[] => lines.map((line) => JSON.parse(line) as Event);
/** A tag as a whole word: `m1_1` is not in `m1_10`. */
const tagged = (text: string, tag: string): boolean => new RegExp(`${tag}(?![0-9])`).test(text);

export function checkInbound(acknowledged: Acknowledged, logs: Map<string, string[]>, violations: string[]): number {
  for (const { sessionId, tag } of acknowledged.inbound ?? []) {
    const received = parse(logs.get(sessionId) ?? []).filter((e) => e.type === "message.received" && !String(e.data["text"]).startsWith(`/reply ${REMINDED}`));
    const count = received.filter((e) => tagged(String(e.data["text"]), tag)).length;
    if (count !== 1) violations.push(`${sessionId}: channel message ${tag} acknowledged, received ${count} times`);
  }
  return acknowledged.inbound?.length ?? 0;
}

const ownedByChannel = (log: readonly Event[]): boolean => log[0]?.type === "session.started" && log[0].data["channel"] === CHANNEL;

/**
 * Waits (up to `timeoutMs`) for the recovered host to deliver every event of the channel's
 * sessions, then checks what the handler saw against the logs. Skipped where the ledger cannot see
 * deliveries (a served process).
 */
export async function checkDeliveries(ledger: Ledger, logs: Map<string, string[]>, violations: string[], timeoutMs: number): Promise<Pick<LandingCounts, "deliveries" | "redeliveries">> {
  const deliveries = ledger.deliveries;
  if (!deliveries) return { deliveries: 0, redeliveries: 0 };
  const owned = [...logs].map(([sessionId, lines]) => [sessionId, parse(lines)] as const).filter(([, log]) => ownedByChannel(log));
  const complete = (): boolean => owned.every(([sessionId, log]) => log.every((event) => deliveries.has(`${sessionId}#${event.index}`)));
  const deadline = Date.now() + timeoutMs;
  while (!complete() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  let checked = 0;
  let redeliveries = 0;
  for (const [sessionId, log] of owned) {
    let across = 0;
    for (const event of log) {
      const entry = deliveries.get(`${sessionId}#${event.index}`);
      if (!entry) {
        violations.push(`${sessionId}: channel event ${event.index} (${event.type}) never delivered`);
        continue;
      }
      checked++;
      if (entry.type !== event.type) violations.push(`${sessionId}: channel event ${event.index} delivered as ${entry.type}, the log holds ${event.type}`);
      for (const host of new Set(entry.hosts)) {
        const times = entry.hosts.filter((h) => h === host).length;
        if (times > 1) violations.push(`${sessionId}: channel event ${event.index} delivered ${times} times by host ${host}`);
      }
      if (new Set(entry.hosts).size > 1) across++;
    }
    if (across > 1) violations.push(`${sessionId}: ${across} channel events delivered again after the restart (at most the one in flight may be)`);
    redeliveries += across;
    const beyond = [...deliveries.keys()].filter((key) => key.startsWith(`${sessionId}#`) && Number(key.slice(sessionId.length + 1)) >= log.length);
    for (const key of beyond) violations.push(`${key}: a channel delivery of an event the log does not hold`);
  }
  return { deliveries: checked, redeliveries };
}

export function checkSubagents(ledger: Ledger, logs: Map<string, string[]>, violations: string[]): number {
  let checked = 0;
  for (const [sessionId, lines] of logs) {
    const open = new Map<string, number>();
    const answers = new Map<string, string[]>();
    const failed = new Set<string>();
    for (const event of parse(lines)) {
      const turnId = event.turnId ?? "";
      if (event.type === "subagent.called") {
        checked++;
        open.set(turnId, (open.get(turnId) ?? 0) + 1);
      } else if (event.type === "subagent.completed") {
        if ((open.get(turnId) ?? 0) === 0) violations.push(`${sessionId}: subagent.completed at ${event.index} with no call open in turn ${turnId}`);
        else open.set(turnId, open.get(turnId)! - 1);
        if (event.data["isError"] === false) answers.set(turnId, [...(answers.get(turnId) ?? []), String(event.data["result"])]);
      } else if (event.type === "action.result" && event.data["toolName"] === "task" && event.data["isError"] === false) {
        const answer = answers.get(turnId)?.shift();
        if (answer !== String(event.data["output"])) violations.push(`${sessionId}: task call ${String(event.data["toolCallId"])} answered ${String(event.data["output"]).slice(0, 40)}, its subagent ${answer ?? "nothing"}`);
      } else if (event.type === "turn.failed" || event.type === "session.failed") {
        failed.add(turnId);
      }
    }
    for (const [turnId, count] of open) if (count > 0 && !failed.has(turnId)) violations.push(`${sessionId}: ${count} subagent call(s) of turn ${turnId} never completed, and the turn did not fail`);
  }
  const running = ledger.subagentSteps?.get(1) ?? 0;
  if (running > 0) violations.push(`${running} subagent step(s) still running on the recovered host after every session rested`);
  return checked;
}

const TERMINAL: Record<string, string[]> = {
  "turn.completed": ["TASK_STATE_COMPLETED"],
  "turn.failed": ["TASK_STATE_FAILED", "TASK_STATE_CANCELED"],
  "session.failed": ["TASK_STATE_FAILED"],
};

export async function checkA2aTasks(host: AgentHost, acknowledged: Acknowledged, logs: Map<string, string[]>, violations: string[]): Promise<number> {
  for (const { taskId, contextId, tag } of acknowledged.a2aTasks ?? []) {
    const turnId = taskId.slice(contextId.length + 1);
    const log = parse(logs.get(contextId) ?? []);
    if (!log.some((e) => e.type === "message.received" && e.turnId === turnId && tagged(String(e.data["text"]), tag))) violations.push(`${contextId}: A2A task ${taskId} (${tag}) has no message.received in its turn`);
    const end = log.findLast((e) => (e.turnId === turnId && (e.type === "turn.completed" || e.type === "turn.failed")) || e.type === "session.failed");
    const response = await host.request(`/${AGENT}/v1/a2a`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: taskId, historyLength: 0 } }),
    });
    const answer = (await response.json()) as { result?: { status?: { state?: string } }; error?: { message?: string } };
    const state = answer.result?.status?.state;
    if (!state) {
      violations.push(`A2A task ${taskId}: GetTask answered ${answer.error?.message ?? response.status}`);
      continue;
    }
    if (!end) violations.push(`A2A task ${taskId} is ${state}, its turn never ended in the log`);
    else if (!TERMINAL[end.type]!.includes(state)) violations.push(`A2A task ${taskId} is ${state}, the log ends its turn with ${end.type}`);
  }
  return acknowledged.a2aTasks?.length ?? 0;
}

/**
 * Polls `tasks/get` on the recovered host until each acknowledged MCP task ends (a task whose
 * runner the crash cut reads `working` until its lease lapses: the harness's hosts use a short
 * one), then checks its end against the ledger.
 */
export async function checkMcpTasks(host: AgentHost, ledger: Ledger, acknowledged: Acknowledged, violations: string[], timeoutMs: number): Promise<number> {
  const runs = ledger.mcpRuns ?? new Map<string, number>();
  for (const [tag, count] of runs) if (count > 1) violations.push(`MCP task tool body for ${tag} (not idempotent) ran ${count} times`);
  const deadline = Date.now() + timeoutMs;
  for (const { taskId, tag } of acknowledged.mcpTasks ?? []) {
    let task: { status?: string; result?: unknown; error?: { message?: string } } | undefined;
    let refused = "";
    for (;;) {
      const response = await host.request(`/${AGENT}/v1/mcp`, mcpRequest(1, "tasks/get", { taskId }));
      const answer = (await response.json()) as { result?: typeof task; error?: { message?: string } };
      task = answer.result;
      refused = answer.error?.message ?? (task ? "" : `HTTP ${response.status}`);
      if (!task || task.status !== "working" || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const ran = runs.get(tag) ?? 0;
    if (!task) violations.push(`MCP task ${taskId} (${tag}) acknowledged, tasks/get answered ${refused}`);
    else if (task.status === "completed") {
      if (!JSON.stringify(task.result).includes(charged(tag))) violations.push(`MCP task ${taskId} (${tag}) completed with ${JSON.stringify(task.result).slice(0, 80)}, not its call's result`);
      if (ran !== 1) violations.push(`MCP task ${taskId} (${tag}) completed but its body ran ${ran} times`);
    } else if (task.status !== "failed") violations.push(`MCP task ${taskId} (${tag}) is ${String(task.status)} after recovery, not completed or failed`);
  }
  return acknowledged.mcpTasks?.length ?? 0;
}
