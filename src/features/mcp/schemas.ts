/** Arguments of the `/v1/mcp` tools (docs/design/mcp-and-discovery.md); their JSON Schemas are derived from these. */
import * as v from "valibot";

/** Longest a single `ask` or `check` waits, whatever the caller asks for. */
export const MAX_WAIT_SECONDS = 60;
/** How long `ask` waits for the reply when the caller does not say. */
export const DEFAULT_ASK_WAIT_SECONDS = 20;

const sessionId = v.pipe(v.string(), v.minLength(1), v.maxLength(100));
const waitSeconds = v.pipe(
  v.number(),
  v.minValue(0),
  v.description(`Seconds to wait for the session to settle; at most ${MAX_WAIT_SECONDS} (larger values are capped).`),
);

export const askArgs = v.strictObject({
  message: v.pipe(v.string(), v.minLength(1, "message must not be empty"), v.maxLength(200_000), v.description("The message for the agent.")),
  sessionId: v.optional(v.pipe(sessionId, v.description("Continue this session instead of starting one (needs continuationToken)."))),
  continuationToken: v.optional(
    v.pipe(v.string(), v.minLength(1), v.maxLength(1024), v.description("The token from the latest ask or check of that session.")),
  ),
  waitSeconds: v.optional(waitSeconds),
});

export type AskArgs = v.InferOutput<typeof askArgs>;

export const checkArgs = v.strictObject({
  sessionId: v.pipe(sessionId, v.description("The session to report on.")),
  waitSeconds: v.optional(waitSeconds),
});

export const callToolArgs = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.description("The server tool to call.")),
  input: v.optional(v.pipe(v.record(v.string(), v.unknown()), v.description("The tool's input, as its input schema describes."))),
  sessionId: v.optional(v.pipe(sessionId, v.description("Run inside this session (recorded on its event stream)."))),
});
