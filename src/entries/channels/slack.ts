/**
 * `agent-serve/channels/slack`: the Slack channel pack. Agent SDK projects import the same
 * names from `@cursor/bdk/channels/slack`.
 * @example
 * // bot/channels/slack.ts
 * import { slackChannel } from "agent-serve/channels/slack";
 * export default slackChannel({ reply: { mode: "stream" }, watchChannels: ["C0123456789"] });
 * @module
 */
export { SLACK_EVENTS_PATH, slackChannel } from "../../features/channels/slack/channel.ts";
export { classifySlackEvent } from "../../features/channels/slack/events.ts";
export type { SlackClassification, SlackEnvelope, SlackEvent, SlackMessage } from "../../features/channels/slack/events.ts";
export { SLACK_SIGNATURE_WINDOW_SECONDS, signSlackRequest, verifySlackSignature } from "../../features/channels/slack/signature.ts";
export type { SlackChannelOptions, SlackReplyOptions, SlackStatusOptions } from "../../features/channels/slack/types.ts";
