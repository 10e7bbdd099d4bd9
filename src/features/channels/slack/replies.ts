/**
 * The Web API calls of the Slack pack, through `@slack/web-api` at the configured base URL:
 * replies in the thread (`chat.postMessage`, `chat.update`), and the status shown while a turn
 * runs (`reactions.add`/`remove`, `assistant.threads.setStatus`).
 *
 * The client module is imported on first use: it needs Node built-ins, and a host that mounts
 * the channel but never replies (or a runtime without them) should not pay for it at start.
 * @module
 */
import type { WebClient } from "@slack/web-api";

export const DEFAULT_SLACK_API_URL = "https://slack.com/api";
/** Slack truncates `text` beyond 40,000 characters. */
const MAX_TEXT = 39_000;

export interface SlackClientSettings {
  apiUrl: string;
  token: string;
  fetch?: typeof fetch;
}

/** The calls the channel makes, over one `WebClient`. */
export interface SlackReplies {
  post(channel: string, threadTs: string, text: string): Promise<string>;
  update(channel: string, ts: string, text: string): Promise<void>;
  addReaction(channel: string, ts: string, name: string): Promise<void>;
  removeReaction(channel: string, ts: string, name: string): Promise<void>;
  setAssistantStatus(channel: string, threadTs: string, status: string): Promise<void>;
}

export async function createSlackReplies(settings: SlackClientSettings): Promise<SlackReplies> {
  const { WebClient: Client, LogLevel } = await import("@slack/web-api");
  const client: WebClient = new Client(settings.token, {
    slackApiUrl: `${settings.apiUrl.replace(/\/+$/, "")}/`,
    logLevel: LogLevel.ERROR,
    // The channel's event delivery already retries a failed reply with backoff; the client's own
    // default (ten retries over half an hour) would hold the session's later events back.
    retryConfig: { retries: 1, factor: 1, minTimeout: 500, maxTimeout: 1000 },
    ...(settings.fetch ? { fetch: settings.fetch } : {}),
  });
  return {
    async post(channel, threadTs, text) {
      const response = await client.chat.postMessage({ channel, thread_ts: threadTs, text: clip(text) });
      return String(response.ts ?? "");
    },
    async update(channel, ts, text) {
      await client.chat.update({ channel, ts, text: clip(text) });
    },
    async addReaction(channel, ts, name) {
      await client.reactions.add({ channel, timestamp: ts, name });
    },
    async removeReaction(channel, ts, name) {
      await client.reactions.remove({ channel, timestamp: ts, name });
    },
    async setAssistantStatus(channel, threadTs, status) {
      await client.assistant.threads.setStatus({ channel_id: channel, thread_ts: threadTs, status });
    },
  };
}

/** The short notice posted in the thread when a turn fails. */
export function slackFailureNotice(message: unknown): string {
  const reason = typeof message === "string" && message.trim() !== "" ? message.trim().slice(0, 300) : "unknown error";
  return `:warning: I could not finish this (${reason}).`;
}

// --- internals ---

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}\n… (cut)` : text;
}
