import * as v from "valibot";
import { cronProblem } from "../../base/cron.ts";
import { parseDuration } from "../../base/duration.ts";
import type { ReminderRecord, ReminderRunContext, ReminderRunResult } from "../../base/definitions/reminders.ts";

const MAX_PURPOSE = 500;
const MAX_PROMPT = 32_000;
const MAX_UNTIL = 2_000;
const MAX_KEY = 1_000;
const MIN_DURATION_MS = 1_000;
const MAX_DURATION_MS = 366 * 86_400_000;
const CADENCES = ["delay", "every", "cron"] as const;

type RunHandler = (context: ReminderRunContext) => ReminderRunResult | Promise<ReminderRunResult>;

/** `reminders.create(...)` input once checked: one cadence, and either `run` or `prompt`/`until`. */
export interface CheckedReminderInput {
  purpose: string;
  channelId: string;
  continuationToken: string;
  cadence: Pick<ReminderRecord, "delay" | "every" | "cron">;
  prompt?: string;
  until?: string;
  run?: RunHandler;
}

/**
 * The schema of `reminders.create(...)` input (host code and the model-facing tool). Its messages
 * are whole sentences naming the field, which the tool hands to the model as they are.
 */
export function reminderInputSchema(options: { minEveryMs?: number } = {}) {
  const minEvery = Math.max(MIN_DURATION_MS, options.minEveryMs ?? 0);
  return v.pipe(
    v.custom<Record<string, unknown>>((value) => typeof value === "object" && value !== null && !Array.isArray(value), "reminder input must be an object"),
    v.looseObject({
      purpose: text("purpose", MAX_PURPOSE),
      channelId: text("channelId", MAX_KEY),
      continuationToken: text("continuationToken", MAX_KEY),
      delay: v.nullish(v.unknown()),
      every: v.nullish(v.unknown()),
      cron: v.nullish(v.unknown()),
      prompt: v.optional(text("prompt", MAX_PROMPT)),
      until: v.optional(text("until", MAX_UNTIL)),
      run: v.optional(v.custom<RunHandler>((value) => typeof value === "function", "run must be a function")),
    }),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const problem = cadenceProblem(dataset.value, minEvery);
      if (problem) addIssue({ message: problem });
    }),
    v.check(
      (input) => input.run === undefined || (input.prompt === undefined && input.until === undefined),
      "a reminder has either run (run form) or prompt/until (prompt form), not both",
    ),
    v.transform((input): CheckedReminderInput => {
      const kind = CADENCES.find((key) => input[key] !== undefined && input[key] !== null)!;
      const value = String(input[kind]).trim();
      return {
        purpose: input.purpose,
        channelId: input.channelId,
        continuationToken: input.continuationToken,
        cadence: kind === "delay" ? { delay: value } : kind === "every" ? { every: value } : { cron: value },
        ...(input.prompt === undefined ? {} : { prompt: input.prompt }),
        ...(input.until === undefined ? {} : { until: input.until }),
        ...(input.run === undefined ? {} : { run: input.run }),
      };
    }),
  );
}

// --- internals ---

function text(name: string, max: number) {
  const message = `${name} must be a non-empty string`;
  return v.pipe(
    v.string(message),
    v.check((value) => value.trim() !== "", message),
    v.maxLength(max, `${name} must be at most ${max} characters`),
  );
}

function cadenceProblem(input: Partial<Record<(typeof CADENCES)[number], unknown>>, minEvery: number): string | undefined {
  const given = CADENCES.filter((key) => input[key] !== undefined && input[key] !== null);
  if (given.length === 0) return "give one cadence: delay (one-shot, e.g. 20m), every (recurring, e.g. 2h) or cron (5-field, UTC)";
  if (given.length > 1) return `give only one cadence, not ${given.join(" and ")}`;
  const kind = given[0]!;
  if (kind === "cron") return cronProblem(input.cron);
  const ms = parseDuration(input[kind]);
  if (ms === undefined) return `${kind} must be a duration such as 30s, 20m, 2h or 1d`;
  const min = kind === "every" ? minEvery : MIN_DURATION_MS;
  if (ms < min || ms > MAX_DURATION_MS) return `${kind} must be between ${describe(min)} and 366d`;
  return undefined;
}

function describe(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`;
}
