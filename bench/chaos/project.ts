/**
 * The chaos agent: tools with side effects the ledger counts (`record`, not idempotent; `lookup`,
 * idempotent; `gated`, parked for approval), and a schedule that fires every minute. Every body
 * counts only while its host is alive (./ledger.ts). The built-in reminder tools are on, so a
 * message can arm a one-shot reminder that a later tick delivers into its session. A custom
 * channel (`inbox`) takes messages on its route and hands every event of its sessions to an
 * `events` handler the ledger counts (docs/guide/channels.md "Events and delivery"), a
 * subagent (`helper`) answers what the `task` tool delegates to it, and `charge` (not idempotent)
 * is what the workload calls as an MCP task.
 * @module
 */
import * as v from "valibot";
import type { ProjectDefinition } from "../../src/base/definitions/project.ts";
import type { ScheduleContext } from "../../src/base/definitions/schedules.ts";
import { defineChannel, POST } from "../../src/entries/channels.ts";
import { countDelivery, countMcpRun, countSlot, countTool, type Ledger } from "./ledger.ts";

export const AGENT = "chaos";
export const SCHEDULE = "minutely";
export const CHANNEL = "inbox";
export const SUBAGENT = "helper";
/** The subagent's own model id, so the harness can count its steps in flight (./crash-point.ts). */
export const SUBAGENT_MODEL = "chaos/subagent";
/** The tool the workload calls as an MCP task (`call_tool` of `/v1/mcp`): not idempotent, counted by tag. */
export const MCP_TOOL = "charge";
/** What the MCP task tool answers for a tag: what a completed task's result must carry. */
export const charged = (tag: string): string => `charged ${tag}`;

/** The inbox channel: a message for a conversation starts or continues its session; every event of its sessions is delivered to the ledger. */
function inbox(ledger: Ledger, alive: () => boolean, generation: number) {
  return defineChannel({
    // No chain of its own: the default one, so its sessions belong to the principal the session
    // routes see, and the oracles' settling can decide what they park.
    routes: [
      POST("/messages", {
        description: "A message for a conversation of the inbox",
        bodySchema: v.object({ conversation: v.string(), text: v.string() }),
        handler: async (_request, { body, send }) => {
          const session = await send(body.text, { continuationToken: `inbox:${body.conversation}` });
          return { sessionId: session.sessionId };
        },
      }),
    ],
    events: {
      "*": (event, channel) => {
        if (alive()) countDelivery(ledger, channel.sessionId, event.index, event.type, generation);
      },
    },
  });
}

/** A body that takes a moment, so a crash can fall while it runs (the `outcome_unknown` window). */
const moment = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

/** `generation` tells the hosts of one crash point apart: 0 the crashed one, 1 the recovered one. */
export function chaosProject(ledger: Ledger, alive: () => boolean, generation = 0): ProjectDefinition {
  const tool = (toolName: string, extra: Record<string, unknown>) => ({
    description: `A side effect the chaos ledger counts (${toolName})`,
    ...extra,
    execute: async (_input: unknown, ctx: { toolCallId: string }) => {
      if (!alive()) return new Promise(() => {});
      countTool(ledger, ctx.toolCallId, toolName);
      await moment();
      return `${toolName} done`;
    },
  });
  return {
    name: "Chaos",
    // The built-in reminder tools: the model arms reminders the clock's ticks fire.
    // `task` is the one harness tool: the model delegates to the subagent.
    agent: { builtinTools: { reminders: true }, tools: ["task"] },
    instructions: "Be brief.",
    diagnostics: [],
    tools: {
      record: tool("record", { idempotent: false }),
      lookup: tool("lookup", { idempotent: true }),
      gated: tool("gated", { needsApproval: true }),
      [MCP_TOOL]: {
        description: "A payment the chaos ledger counts by tag, called as an MCP task",
        idempotent: false,
        execute: async (input: { tag?: unknown }) => {
          if (!alive()) return new Promise(() => {});
          const tag = String(input.tag);
          countMcpRun(ledger, tag);
          await moment();
          return charged(tag);
        },
      },
    },
    channels: { [CHANNEL]: inbox(ledger, alive, generation) },
    subagents: { [SUBAGENT]: { description: "Answers what it is asked", instructions: "Answer briefly.", model: SUBAGENT_MODEL } },
    schedules: {
      [SCHEDULE]: {
        cron: "* * * * *",
        run: (context: ScheduleContext) => {
          if (alive()) countSlot(ledger, context.scheduleId, context.slot ?? "by hand");
        },
      },
    },
  } as unknown as ProjectDefinition;
}
