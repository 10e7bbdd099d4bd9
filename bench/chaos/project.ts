/**
 * The chaos agent: tools with side effects the ledger counts (`record`, not idempotent; `lookup`,
 * idempotent; `gated`, parked for approval), and a schedule that fires every minute. Every body
 * counts only while its host is alive (./ledger.ts). The built-in reminder tools are on, so a
 * message can arm a one-shot reminder that a later tick delivers into its session.
 * @module
 */
import type { ProjectDefinition } from "../../src/base/definitions/project.ts";
import type { ScheduleContext } from "../../src/base/definitions/schedules.ts";
import { countSlot, countTool, type Ledger } from "./ledger.ts";

export const AGENT = "chaos";
export const SCHEDULE = "minutely";

/** A body that takes a moment, so a crash can fall while it runs (the `outcome_unknown` window). */
const moment = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

export function chaosProject(ledger: Ledger, alive: () => boolean): ProjectDefinition {
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
    agent: { builtinTools: { reminders: true } },
    instructions: "Be brief.",
    diagnostics: [],
    tools: {
      record: tool("record", { idempotent: false }),
      lookup: tool("lookup", { idempotent: true }),
      gated: tool("gated", { needsApproval: true }),
    },
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
