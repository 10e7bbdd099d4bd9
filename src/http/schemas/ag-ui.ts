/**
 * AG-UI's `RunAgentInput` (docs/guide/ag-ui.md): what `HttpAgent` and CopilotKit post. Only what
 * the route reads is checked; the rest of each message and the protocol's optional fields
 * (`context`, `forwardedProps`, metadata) pass untouched.
 * @module
 */
import * as v from "valibot";

const id = (what: string) => v.pipe(v.string(`${what} must be a string`), v.minLength(1, `${what} must not be empty`), v.maxLength(200, `${what} is at most 200 characters`));

const message = v.looseObject({
  id: v.string("each message needs a string id"),
  role: v.picklist(["developer", "system", "assistant", "user", "tool", "activity", "reasoning"], "a message's role must be one of AG-UI's roles"),
  content: v.optional(v.unknown()),
});

const resumeEntry = v.looseObject({
  interruptId: id("resume[].interruptId"),
  status: v.picklist(["resolved", "cancelled"], "resume[].status must be resolved or cancelled"),
  payload: v.optional(v.unknown()),
});

export const agUiRunBody = v.looseObject({
  threadId: id("threadId"),
  /** Optional: a run without one gets a server-minted id (docs/design/ag-ui-runs.md). */
  runId: v.optional(id("runId")),
  messages: v.array(message, "messages must be an array of AG-UI messages"),
  tools: v.optional(
    v.array(
      v.looseObject({
        name: v.pipe(v.string("tools[].name must be a string"), v.regex(/^[A-Za-z0-9_-]{1,64}$/, "tools[].name is 1 to 64 letters, digits, _ or -")),
        description: v.string("tools[].description must be a string"),
        parameters: v.optional(v.record(v.string(), v.unknown(), "tools[].parameters must be a JSON Schema object")),
      }),
      "tools must be an array of AG-UI tools",
    ),
  ),
  state: v.optional(v.nullable(v.record(v.string(), v.unknown(), "state must be a JSON object"))),
  resume: v.optional(v.array(resumeEntry, "resume must be an array of resume entries")),
});

export type AgUiRunBody = v.InferOutput<typeof agUiRunBody>;
