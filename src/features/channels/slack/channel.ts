/**
 * `slackChannel(options)`: the Slack pack as a channel definition. The Events API posts to
 * `POST /v1/channels/<id>/events`; replies go back into the thread through the Web API
 * (docs/guide/slack.md).
 * @module
 */
import * as v from "valibot";
import { allowAll } from "../../../base/auth-policies.ts";
import { POST, defineChannel } from "../define.ts";
import { readEnv } from "../packs/env.ts";
import { markChannelPack } from "../packs/marker.ts";
import type { ChannelDefinition, ChannelStartContext } from "../../../base/definitions/channels.ts";
import { slackEventHandlers } from "./delivery.ts";
import { handleSlackEvents } from "./ingress.ts";
import { DEFAULT_SLACK_API_URL, type SlackReplies, createSlackReplies } from "./replies.ts";
import type { SlackChannelOptions } from "./types.ts";

export const SLACK_EVENTS_PATH = "/events";
const DEFAULT_DEDUPE_MS = 24 * 60 * 60 * 1000;

export function slackChannel(options: SlackChannelOptions = {}): ChannelDefinition {
  const prefix = options.envPrefix ? `${options.envPrefix.toUpperCase()}_` : "";
  const tokenName = `${prefix}SLACK_BOT_TOKEN`;
  const secretName = `${prefix}SLACK_SIGNING_SECRET`;
  const token = () => options.botToken ?? readEnv(tokenName);
  const secret = () => options.signingSecret ?? readEnv(secretName);
  let start: ChannelStartContext | undefined;
  let client: { replies: Promise<SlackReplies>; token: string; apiUrl: string } | undefined;
  let warnedNoToken = false;

  // Settings are read when first needed (the environment may be filled after the file loads).
  const replies = async (): Promise<SlackReplies | undefined> => {
    const current = token();
    const apiUrl = options.apiUrl ?? readEnv("SLACK_API_URL") ?? DEFAULT_SLACK_API_URL;
    if (!current) {
      if (!warnedNoToken) start?.logger.warn(`slack channel ${start.channel.id}: no bot token (${tokenName}), replies are not posted`);
      warnedNoToken = true;
      return undefined;
    }
    if (!client || client.token !== current || client.apiUrl !== apiUrl) {
      client = { replies: createSlackReplies({ apiUrl, token: current, ...(options.fetch ? { fetch: options.fetch } : {}) }), token: current, apiUrl };
    }
    return client.replies;
  };

  const definition = defineChannel({
    auth: [allowAll()],
    routes: [
      POST(SLACK_EVENTS_PATH, {
        description: "Slack Events API request URL (signed with X-Slack-Signature)",
        bodySchema: v.unknown(),
        handler: (request, context) =>
          handleSlackEvents(request, context, {
            secret,
            watchChannels: options.watchChannels ?? [],
            hasConversation: async (conversation) => (start ? start.hasContinuationSession(conversation) : false),
            dedupeWindowMs: options.dedupeWindowMs ?? DEFAULT_DEDUPE_MS,
          }),
      }),
    ],
    events: slackEventHandlers(replies, options.reply ?? {}),
    onStart(context) {
      start = context;
    },
  });
  return markChannelPack(definition, {
    kind: "slack",
    ingressPath: SLACK_EVENTS_PATH,
    requirements: () => [
      { name: secretName, purpose: "verifies Events API requests", present: Boolean(secret()) },
      { name: tokenName, purpose: "posts replies in the thread", present: Boolean(token()) },
    ],
    notices: () => {
      const mode = options.reply?.mode;
      return mode === undefined || mode === "post" || mode === "stream" ? [] : [`reply mode ${JSON.stringify(mode)} is not supported; replies are posted as in mode "post"`];
    },
  });
}
