/**
 * Options of `slackChannel` (docs/guide/slack.md).
 * @module
 */

export interface SlackChannelOptions {
  /**
   * Reads `<PREFIX>_SLACK_BOT_TOKEN` and `<PREFIX>_SLACK_SIGNING_SECRET` instead of
   * `SLACK_BOT_TOKEN` and `SLACK_SIGNING_SECRET`, so several Slack apps can serve one host.
   */
  envPrefix?: string;
  /** The bot token (`xoxb-…`) replies are posted with. @default env <PREFIX>_SLACK_BOT_TOKEN */
  botToken?: string;
  /** The app's signing secret. @default env <PREFIX>_SLACK_SIGNING_SECRET */
  signingSecret?: string;
  /** Web API base URL. @default env SLACK_API_URL, else `https://slack.com/api` */
  apiUrl?: string;
  reply?: SlackReplyOptions;
  /** Channel ids (`C0123…`) where every top-level message wakes the agent, not only mentions. */
  watchChannels?: string[];
  /** How long a delivered message is remembered as a duplicate. @default 1 day */
  dedupeWindowMs?: number;
  /** `fetch` the Web API client uses (tests, proxies). @default globalThis.fetch */
  fetch?: typeof fetch;
}

export interface SlackReplyOptions {
  /**
   * `post`: one complete reply once the turn ends (a status shows meanwhile); `stream`: the reply
   * is posted as soon as text arrives and grows with `chat.update`. @default "post"
   */
  mode?: "post" | "stream";
  /** The status shown while a turn runs; `false` shows none. */
  status?: SlackStatusOptions | false;
  /** Least time between two `chat.update` calls while streaming. @default 1000 */
  streamIntervalMs?: number;
}

export interface SlackStatusOptions {
  /**
   * Reaction added to the message that woke the agent while its turn runs (`reactions:write`),
   * removed when the turn ends; `false` adds none. @default "eyes"
   */
  reaction?: string | false;
  /**
   * Also set the assistant thread status (`assistant.threads.setStatus`, for apps with the
   * Agents & AI Apps feature; other apps get an error from Slack, which is logged once).
   * @default false
   */
  assistant?: boolean;
  /** Status texts while the model works, shown in turn; the first one when the turn starts. @default ["is thinking…"] */
  idle?: string[];
  /** Show "is reasoning…" while the model reasons (assistant status). @default true */
  reasoning?: boolean;
  /** Show "is using <tool>…" while tools run (assistant status). @default true */
  tools?: boolean;
}
