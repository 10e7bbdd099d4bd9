/**
 * The built-in HTTP channel's `onMessage` transform (`bot/channels/http.ts`): each message of
 * `POST /v1/session` and `POST /v1/session/:sessionId` passes through it, and a `null` result
 * refuses the message with 400 before anything is recorded (docs/guide/channels.md "The HTTP channel").
 * @module
 */
import { HTTPError } from "../../base/errors.ts";
import type { AuthContext } from "../../base/auth.ts";
import { type ChannelHost, HTTP_CHANNEL } from "./channel-host.ts";
import type { ChannelSendOptions } from "../../base/definitions/channels.ts";

export type HttpMessageOptions = Pick<ChannelSendOptions, "title" | "state" | "purpose" | "workspaceFiles">;

/** The message (and options) to use; the input unchanged without an override. */
export async function transformHttpMessage(
  channels: ChannelHost,
  input: { message: string; body: Record<string, unknown>; auth: AuthContext; request: Request; followUp: boolean },
): Promise<{ message: string; options: HttpMessageOptions }> {
  const onMessage = channels.definition(HTTP_CHANNEL)?.onMessage;
  if (typeof onMessage !== "function") return { message: input.message, options: {} };
  const result = await onMessage(input, channels.services(HTTP_CHANNEL, { origin: new URL(input.request.url).origin, auth: input.auth }));
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
