/**
 * The Slack pack's event handlers: the reply in the thread (`post`, or `stream` with
 * `chat.update`), the status while a turn runs, and a notice when a turn fails
 * (docs/guide/slack.md).
 *
 * Events arrive in index order per session and at least once; `state.repliedThrough` keeps an
 * already posted reply from being posted twice. The text of a reply being streamed is kept in
 * memory only (a storage write per delta would cost more than the reply); the final
 * `message.completed` carries the whole text, so a restart mid-stream still ends on the full reply.
 * @module
 */
import type { SessionEvent } from "../../../base/events/vocabulary.ts";
import { errorMessage } from "../../../base/errors.ts";
import type { HostLogger } from "../../../base/logging.ts";
import type { ChannelBinding, ChannelDefinition } from "../../../base/definitions/channels.ts";
import type { SlackThreadState } from "./ingress.ts";
import { type SlackReplies, slackFailureNotice } from "./replies.ts";
import type { SlackReplyOptions, SlackStatusOptions } from "./types.ts";

const DEFAULT_STATUS: Required<SlackStatusOptions> = {
  reaction: "eyes",
  assistant: false,
  idle: ["is thinking…"],
  reasoning: true,
  tools: true,
};

/** What a turn showed, kept on the session so a later event (or process) can undo it. */
interface TurnDisplay {
  turnId: string;
  /** The message a reaction was added to. */
  reactedTs?: string;
  /** The reply message being streamed. */
  streamTs?: string;
}

export function slackEventHandlers(
  replies: () => Promise<SlackReplies | undefined>,
  options: SlackReplyOptions,
): NonNullable<ChannelDefinition["events"]> {
  const mode = options.mode ?? "post";
  const status = options.status === false ? undefined : { ...DEFAULT_STATUS, ...options.status };
  const interval = options.streamIntervalMs ?? 1000;
  const streams = new Map<string, { text: string; updatedAt: number }>();
  const warned = new Set<string>();
  /** Status calls are decoration: a failure is logged once per kind and never retried. */
  const decorate = async (logger: HostLogger, kind: string, call: () => Promise<void>) => {
    try {
      await call();
    } catch (error) {
      if (!warned.has(kind)) logger.warn(`slack ${kind} failed (${errorText(error)}); the reply is not affected`);
      warned.add(kind);
    }
  };

  const statusOff = async (event: Readonly<SessionEvent>, channel: ChannelBinding, logger: HostLogger, client: SlackReplies) => {
    streams.delete(channel.sessionId);
    const display = displayOf(channel, event);
    const thread = threadOf(channel);
    if (!display || !thread) return;
    const reaction = status?.reaction;
    if (reaction && display.reactedTs) await decorate(logger, "reactions.remove", () => client.removeReaction(thread.channel, display.reactedTs!, reaction));
    if (status?.assistant) await decorate(logger, "assistant.threads.setStatus", () => client.setAssistantStatus(thread.channel, thread.threadTs, ""));
    delete channel.state.slackTurn;
  };

  const handlers: NonNullable<ChannelDefinition["events"]> = {
    async "turn.started"(event, channel, context) {
      const thread = threadOf(channel);
      const client = await replies();
      if (!thread || !client || !status || event.turnId === undefined) return;
      const display: TurnDisplay = { turnId: event.turnId };
      channel.state.slackTurn = display;
      const reaction = status.reaction;
      if (reaction) {
        await decorate(context.logger, "reactions.add", () => client.addReaction(thread.channel, thread.lastTs, reaction));
        display.reactedTs = thread.lastTs;
      }
      const idle = status.idle[0];
      if (status.assistant && idle) await decorate(context.logger, "assistant.threads.setStatus", () => client.setAssistantStatus(thread.channel, thread.threadTs, idle));
    },
    async "message.completed"(event, channel) {
      const text = event.data.text.trim();
      if (event.data.finishReason === "tool_call") {
        // The streamed message shows the next step's text from here on.
        streams.delete(channel.sessionId);
        return;
      }
      if (text === "" || alreadyReplied(channel, event)) return;
      const thread = threadOf(channel);
      const client = await replies();
      if (!thread || !client) return;
      const streamTs = mode === "stream" ? displayOf(channel, event)?.streamTs : undefined;
      if (streamTs) await client.update(thread.channel, streamTs, text);
      else await client.post(thread.channel, thread.threadTs, text);
      channel.state.repliedThrough = event.index;
    },
    async "turn.completed"(event, channel, context) {
      const client = await replies();
      if (client) await statusOff(event, channel, context.logger, client);
    },
    async "turn.failed"(event, channel, context) {
      const thread = threadOf(channel);
      const client = await replies();
      if (!thread || !client) return;
      await statusOff(event, channel, context.logger, client);
      if (alreadyReplied(channel, event)) return;
      await client.post(thread.channel, thread.threadTs, slackFailureNotice(event.data.message));
      channel.state.repliedThrough = event.index;
    },
  };

  if (status?.assistant && (status.reasoning || status.tools)) {
    const setStatus = async (channel: ChannelBinding, logger: HostLogger, text: string) => {
      const thread = threadOf(channel);
      const client = await replies();
      if (thread && client) await decorate(logger, "assistant.threads.setStatus", () => client.setAssistantStatus(thread.channel, thread.threadTs, text));
    };
    if (status.reasoning) handlers["reasoning.completed"] = (_event, channel, context) => setStatus(channel, context.logger, "is reasoning…");
    if (status.tools) {
      handlers["actions.requested"] = (event, channel, context) => {
        const names = [...new Set(event.data.actions.map((action) => action.toolName))].join(", ") || "tools";
        return setStatus(channel, context.logger, `is using ${names}…`);
      };
    }
  }

  if (mode === "stream") {
    handlers["message.appended"] = async (event, channel) => {
      const delta = event.data.delta;
      const thread = threadOf(channel);
      if (delta === "" || !thread || event.turnId === undefined) return;
      const stream = streams.get(channel.sessionId) ?? { text: "", updatedAt: 0 };
      stream.text += delta;
      streams.set(channel.sessionId, stream);
      const now = Date.now();
      if (stream.text.trim() === "" || now - stream.updatedAt < interval) return;
      const client = await replies();
      if (!client) return;
      const display = (displayOf(channel, event) ?? { turnId: event.turnId }) as TurnDisplay;
      if (display.streamTs) await client.update(thread.channel, display.streamTs, stream.text);
      else display.streamTs = await client.post(thread.channel, thread.threadTs, stream.text);
      stream.updatedAt = now;
      channel.state.slackTurn = display;
    };
  }
  return handlers;
}

// --- internals ---

function threadOf(channel: ChannelBinding): SlackThreadState | undefined {
  const thread = channel.state.slack as Partial<SlackThreadState> | undefined;
  if (typeof thread?.channel !== "string" || typeof thread.threadTs !== "string") return undefined;
  return { channel: thread.channel, threadTs: thread.threadTs, lastTs: typeof thread.lastTs === "string" ? thread.lastTs : thread.threadTs };
}

/** The display of the event's turn (a display left by an earlier turn is not this one's). */
function displayOf(channel: ChannelBinding, event: Readonly<SessionEvent>): TurnDisplay | undefined {
  const display = channel.state.slackTurn as TurnDisplay | undefined;
  return display && display.turnId === event.turnId ? display : undefined;
}

function alreadyReplied(channel: ChannelBinding, event: Readonly<SessionEvent>): boolean {
  return typeof channel.state.repliedThrough === "number" && channel.state.repliedThrough >= event.index;
}

function errorText(error: unknown): string {
  const data = (error as { data?: { error?: unknown } } | undefined)?.data;
  if (typeof data?.error === "string") return data.error;
  return errorMessage(error);
}
