/**
 * The Slack app manifest the Slack pack needs (docs/guide/slack.md "Set-up"): the events it
 * wakes on, the scopes of the Web API methods it calls (chat.postMessage and chat.update,
 * reactions.add/remove, assistant.threads.setStatus), and the events request URL.
 * @module
 */

/** Bot events the pack handles: mentions, direct messages, and posts in (watched) channels and threads. */
export const SLACK_BOT_EVENTS = ["app_mention", "message.im", "message.channels", "message.groups"];

/** Bot scopes: reading those events, and posting, reacting and setting the assistant status. */
export const SLACK_BOT_SCOPES = ["app_mentions:read", "chat:write", "im:history", "channels:history", "groups:history", "reactions:write", "assistant:write"];

export function slackManifest(name: string, requestUrl: string): Record<string, unknown> {
  return {
    display_information: { name },
    features: {
      app_home: { messages_tab_enabled: true, messages_tab_read_only_enabled: false },
      bot_user: { display_name: name, always_online: true },
    },
    oauth_config: { scopes: { bot: SLACK_BOT_SCOPES } },
    settings: {
      event_subscriptions: { request_url: requestUrl, bot_events: SLACK_BOT_EVENTS },
      org_deploy_enabled: false,
      socket_mode_enabled: false,
    },
  };
}
