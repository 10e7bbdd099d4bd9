/**
 * The model-facing reminder tools (`builtinTools.reminders: true`): `reminders_create`,
 * `reminders_list` and `reminders_cancel`, bound to the conversation of the turn that calls them
 * (docs/design/timed-work.md "Reminders" fixes their inputs).
 * @module
 */
import { errorMessage } from "../../base/errors.ts";
import type { JsonValue } from "../../base/ports/model.ts";
import type { SessionRecordsView } from "../../base/definitions/sessions.ts";
import type { ToolOutcome } from "../../base/definitions/tools.ts";
import type { BuiltinTool } from "../../base/definitions/tools.ts";
import type { ReminderService } from "./service.ts";
import type { ReminderRecord } from "../../base/definitions/reminders.ts";

export const REMINDER_TOOLS = ["reminders_create", "reminders_list", "reminders_cancel"] as const;

/** A model may keep this many reminders armed per conversation. */
const MAX_PER_CONVERSATION = 50;
/** The shortest `every` a model may choose: each firing is a model turn. */
const MIN_MODEL_EVERY_MS = 60_000;

export function reminderTools(reminders: ReminderService, store: SessionRecordsView): BuiltinTool[] {
  /** The conversation of the calling turn, or an error the model can read. */
  const conversation = async (sessionId: string) => {
    const record = await store.get(sessionId);
    if (!record) throw new Error("this session no longer exists");
    if (record.mode !== "chat") {
      throw new Error("reminders need a conversation that can be followed up; this task session has no continuation and cannot arm them");
    }
    return record;
  };
  return [
    {
      spec: {
        name: "reminders_create",
        description: [
          "Arm a reminder that wakes this conversation later: on each firing, the prompt is sent here as a new message.",
          "Give exactly one cadence: delay (one-shot, e.g. \"20m\"), every (recurring, e.g. \"2h\", at least 1m) or cron (5-field, UTC).",
          "until is a standing condition: once it holds, cancel the reminder with reminders_cancel.",
        ].join(" "),
        inputSchema: {
          type: "object",
          properties: {
            purpose: { type: "string", description: "Why the reminder exists (shown in listings)." },
            prompt: { type: "string", description: "The message sent into this conversation when it fires." },
            until: { type: "string", description: "When this holds, the reminder should be cancelled." },
            delay: { type: "string", description: "One-shot: fire once after this long, e.g. 30s, 20m, 2h, 1d." },
            every: { type: "string", description: "Recurring: fire every this long, e.g. 30m." },
            cron: { type: "string", description: "Recurring: a 5-field cron expression in UTC." },
          },
          required: ["purpose"],
          additionalProperties: false,
        },
      },
      execute: (input, scope) =>
        outcome(async () => {
          const session = await conversation(scope.sessionId);
          const { channelId: _c, continuationToken: _t, run: _r, ...rest } = isObject(input) ? input : {};
          return reminders.create(
            { ...rest, channelId: session.channel, continuationToken: session.continuationToken },
            { sessionId: session.sessionId, minEveryMs: MIN_MODEL_EVERY_MS, maxPerConversation: MAX_PER_CONVERSATION },
          );
        }),
    },
    {
      spec: {
        name: "reminders_list",
        description: "List the armed reminders of this conversation.",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
      },
      execute: (_input, scope) =>
        outcome(async () => {
          const session = await store.get(scope.sessionId);
          if (!session) throw new Error("this session no longer exists");
          const list = await reminders.list({ channelId: session.channel, sessionId: session.sessionId, continuationToken: session.continuationToken });
          return { reminders: list };
        }),
    },
    {
      spec: {
        name: "reminders_cancel",
        description: "Cancel (stop) a reminder of this conversation by id.",
        inputSchema: {
          type: "object",
          properties: { id: { type: "string", description: "The reminder id, e.g. rem_..." } },
          required: ["id"],
          additionalProperties: false,
        },
      },
      execute: (input, scope) =>
        outcome(async () => {
          const id = isObject(input) && typeof input.id === "string" ? input.id : undefined;
          if (id === undefined) throw new Error("id must be a reminder id string");
          const session = await store.get(scope.sessionId);
          const record = await reminders.get(id);
          if (!record || !session || !belongsTo(record, session.channel, session.sessionId, session.continuationToken)) {
            throw new Error(`no reminder ${id} in this conversation`);
          }
          const stopped = await reminders.cancel(id);
          return { id, status: stopped?.status ?? record.status };
        }),
    },
  ];
}

// --- internals ---

async function outcome(work: () => Promise<unknown>): Promise<ToolOutcome> {
  try {
    return { output: toJson(await work()), isError: false };
  } catch (error) {
    const message = errorMessage(error);
    return { output: message, isError: true };
  }
}

function belongsTo(record: ReminderRecord, channel: string, sessionId: string, token: string): boolean {
  return record.channelId === channel && (record.sessionId === sessionId || record.continuationToken === token);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue; // SAFETY: a JSON round trip
}
