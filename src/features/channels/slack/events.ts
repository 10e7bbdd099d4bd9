/**
 * Which Events API deliveries wake the agent and on which conversation (docs/guide/slack.md):
 * a mention, a direct message, any top-level message in a watched channel, or a reply in a
 * thread the agent already talks in. Messages from bots (the agent's own included) and messages
 * with a `subtype` (edits, joins, deletions, bot posts) never do.
 * @module
 */

/** The members of an `event_callback` envelope the pack reads. */
export interface SlackEnvelope {
  type?: unknown;
  event_id?: unknown;
  team_id?: unknown;
  event?: SlackEvent;
  authorizations?: Array<{ user_id?: unknown; is_bot?: unknown }>;
  [key: string]: unknown;
}

export interface SlackEvent {
  type?: unknown;
  channel?: unknown;
  channel_type?: unknown;
  user?: unknown;
  text?: unknown;
  ts?: unknown;
  thread_ts?: unknown;
  bot_id?: unknown;
  subtype?: unknown;
  team?: unknown;
  [key: string]: unknown;
}

/** A message that may start or continue a turn. */
export interface SlackMessage {
  channel: string;
  /** The message's own timestamp (the reaction target). */
  ts: string;
  /** The thread the reply goes to: the message's thread, or the message itself. */
  threadTs: string;
  user: string;
  team: string | undefined;
  /** The text without the mention of the app's bot user. */
  text: string;
  /** `<channel>:<thread_ts or ts>`. */
  conversation: string;
  /** Why it wakes the agent; `thread` only when the conversation already has a session. */
  reason: "mention" | "dm" | "watched" | "thread";
}

export type SlackClassification = { message: SlackMessage } | { ignore: string };

export function classifySlackEvent(envelope: SlackEnvelope, watchChannels: readonly string[]): SlackClassification {
  const event = envelope.event;
  if (!event || typeof event !== "object") return { ignore: "no event" };
  if (event.type !== "app_mention" && event.type !== "message") return { ignore: `event type ${String(event.type)}` };
  if (event.bot_id !== undefined || event.subtype !== undefined) return { ignore: "bot or subtype message" };
  const { channel, user, ts, text } = event;
  if (typeof channel !== "string" || typeof user !== "string" || typeof ts !== "string") return { ignore: "incomplete message" };
  // Ids and timestamps become conversation keys and storage keys: anything not shaped as Slack
  // shapes them is not a message this channel can answer.
  if (!SLACK_ID.test(channel) || !SLACK_TS.test(ts)) return { ignore: "malformed channel or ts" };
  if (event.thread_ts !== undefined && (typeof event.thread_ts !== "string" || !SLACK_TS.test(event.thread_ts))) return { ignore: "malformed thread_ts" };
  const threadTs = typeof event.thread_ts === "string" ? event.thread_ts : ts;
  const reason: SlackMessage["reason"] =
    event.type === "app_mention"
      ? "mention"
      : event.channel_type === "im"
        ? "dm"
        : watchChannels.includes(channel) && threadTs === ts
          ? "watched"
          : "thread";
  // Outside a thread, only a mention, a DM or a watched channel can wake the agent.
  if (reason === "thread" && threadTs === ts) return { ignore: "message in an unwatched channel" };
  const cleaned = stripMentions(typeof text === "string" ? text : "", botUserIds(envelope));
  if (cleaned === "") return { ignore: "empty message" };
  return {
    message: {
      channel,
      ts,
      threadTs,
      user,
      team: typeof event.team === "string" ? event.team : typeof envelope.team_id === "string" ? envelope.team_id : undefined,
      text: cleaned,
      conversation: `${channel}:${threadTs}`,
      reason,
    },
  };
}

// --- internals ---

const SLACK_ID = /^[A-Z0-9]{1,32}$/i;
const SLACK_TS = /^\d{1,12}\.\d{1,9}$/;

function botUserIds(envelope: SlackEnvelope): string[] {
  const ids: string[] = [];
  for (const authorization of envelope.authorizations ?? []) {
    if (typeof authorization?.user_id === "string" && authorization.is_bot !== false) ids.push(authorization.user_id);
  }
  return ids;
}

/** Removes `<@BOT>` mentions of the app itself; other mentions stay, they carry meaning. */
function stripMentions(text: string, botIds: readonly string[]): string {
  let out = text;
  for (const id of botIds) out = out.replaceAll(new RegExp(`<@${escape(id)}(\\|[^>]*)?>`, "g"), "");
  return out.replace(/[ \t]{2,}/g, " ").trim();
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
