/**
 * Validation of `reminders.create(...)` input, shared by host code and the model-facing tool.
 * Failures are `HTTPError` 400 `invalid_request`, which the tool turns into an error result.
 * @module
 */
import { badRequest } from "../errors.ts";
import { cronProblem } from "../timers/cron.ts";
import { parseDuration } from "../timers/duration.ts";
import type { ReminderRecord, ReminderRunContext, ReminderRunResult } from "./types.ts";

const MAX_PURPOSE = 500;
const MAX_PROMPT = 32_000;
const MAX_UNTIL = 2_000;
const MAX_KEY = 1_000;
const MIN_DURATION_MS = 1_000;
const MAX_DURATION_MS = 366 * 86_400_000;

export interface CheckedInput {
  purpose: string;
  channelId: string;
  continuationToken: string;
  cadence: Pick<ReminderRecord, "delay" | "every" | "cron">;
  prompt?: string;
  until?: string;
  run?: (context: ReminderRunContext) => ReminderRunResult | Promise<ReminderRunResult>;
}

export interface CheckOptions {
  /** Shortest `every` accepted. @default 1000 */
  minEveryMs?: number;
}

export function checkReminderInput(input: unknown, options: CheckOptions = {}): CheckedInput {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw badRequest("reminder input must be an object");
  const value = input as Record<string, unknown>; // SAFETY: a non-null object, read field by field
  const purpose = text(value.purpose, "purpose", MAX_PURPOSE, true);
  const channelId = text(value.channelId, "channelId", MAX_KEY, true);
  const continuationToken = text(value.continuationToken, "continuationToken", MAX_KEY, true);
  const given = (["delay", "every", "cron"] as const).filter((key) => value[key] !== undefined && value[key] !== null);
  if (given.length !== 1) {
    throw badRequest(given.length === 0 ? "give one cadence: delay (one-shot, e.g. 20m), every (recurring, e.g. 2h) or cron (5-field, UTC)" : `give only one cadence, not ${given.join(" and ")}`);
  }
  const kind = given[0]!;
  const raw = value[kind];
  if (kind === "cron") {
    const problem = cronProblem(raw);
    if (problem) throw badRequest(problem);
  } else {
    const ms = parseDuration(raw);
    if (ms === undefined) throw badRequest(`${kind} must be a duration such as 30s, 20m, 2h or 1d`);
    const min = kind === "every" ? Math.max(MIN_DURATION_MS, options.minEveryMs ?? 0) : MIN_DURATION_MS;
    if (ms < min || ms > MAX_DURATION_MS) throw badRequest(`${kind} must be between ${describe(min)} and 366d`);
  }
  const cadence: CheckedInput["cadence"] = kind === "delay" ? { delay: String(raw).trim() } : kind === "every" ? { every: String(raw).trim() } : { cron: String(raw).trim() };
  const run = value.run;
  if (run !== undefined && typeof run !== "function") throw badRequest("run must be a function");
  const prompt = value.prompt === undefined ? undefined : text(value.prompt, "prompt", MAX_PROMPT, true);
  const until = value.until === undefined ? undefined : text(value.until, "until", MAX_UNTIL, true);
  if (run !== undefined && (prompt !== undefined || until !== undefined)) {
    throw badRequest("a reminder has either run (run form) or prompt/until (prompt form), not both");
  }
  return {
    purpose,
    channelId,
    continuationToken,
    cadence,
    ...(prompt === undefined ? {} : { prompt }),
    ...(until === undefined ? {} : { until }),
    // SAFETY: checked to be a function; its result is checked when it runs
    ...(run === undefined ? {} : { run: run as CheckedInput["run"] & object }),
  };
}

// --- internals ---

function text(value: unknown, name: string, max: number, required: boolean): string {
  if (typeof value !== "string" || (required && value.trim() === "")) throw badRequest(`${name} must be a non-empty string`);
  if (value.length > max) throw badRequest(`${name} must be at most ${max} characters`);
  return value;
}

function describe(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms / 1000}s`;
}
