/**
 * The built-in HTTP channel: the channel of the session routes (docs/guide/channels.md "The HTTP
 * channel override"). `bot/channels/http.ts` is an ordinary channel definition for it: its `auth`
 * is the agent's chain, and its `onMessage` sees each message of `POST /v1/session` and
 * `POST /v1/session/:sessionId`, reached like every channel's code through the channel host
 * (./channel-host.ts `transform`). A `null` result refuses the message with 400 before anything is
 * recorded.
 * @module
 */
import { HTTPError } from "../../base/errors.ts";
import type { ChannelDefinition, ChannelSendOptions, ChannelServices, HttpChannelMessage } from "../../base/definitions/channels.ts";

/** The id of the built-in HTTP channel; `bot/channels/http.ts` overrides it. */
export const HTTP_CHANNEL = "http";

/** A message after its channel's `onMessage`, with the send options the transform chose. */
export interface TransformedMessage {
  message: string;
  options: Pick<ChannelSendOptions, "title" | "state" | "purpose" | "workspaceFiles">;
}

/** The message (and options) `definition`'s `onMessage` makes of `input`; the input unchanged without one. */
export async function applyOnMessage(
  definition: ChannelDefinition | undefined,
  input: HttpChannelMessage,
  services: () => ChannelServices,
): Promise<TransformedMessage> {
  const onMessage = definition?.onMessage;
  if (typeof onMessage !== "function") return { message: input.message, options: {} };
  const result = await onMessage.call(definition, input, services());
  if (result === null || result === undefined) throw refused();
  if (typeof result === "string") return { message: nonEmpty(result), options: {} };
  return { message: nonEmpty(result.message), options: result.options ?? {} };
}

// --- internals ---

function nonEmpty(message: unknown): string {
  if (typeof message !== "string" || message.length === 0) {
    throw new HTTPError({ status: 500, code: "internal_error", message: "the HTTP channel's onMessage returned no message" });
  }
  return message;
}

const refused = (): HTTPError => new HTTPError({ status: 400, code: "message_refused", message: "the HTTP channel refused this message" });
