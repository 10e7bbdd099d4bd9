/**
 * `githubChannel(options)`: the GitHub pack as a channel definition. Deliveries arrive at
 * `POST /v1/channels/<id>/webhook` (or through the host's `POST /v1/webhooks/scm`); replies go
 * back as issue comments (docs/guide/github.md).
 * @module
 */
import type { Octokit } from "@octokit/core";
import * as v from "valibot";
import { allowAll } from "../../../base/auth-policies.ts";
import { POST, defineChannel } from "../define.ts";
import { readEnv } from "../packs/env.ts";
import { markChannelPack } from "../packs/marker.ts";
import type { ChannelBinding, ChannelDefinition, ChannelEventContext, ChannelState } from "../../../base/definitions/channels.ts";
import type { SessionEvent } from "../../../base/events/vocabulary.ts";
import { type GitHubThread, parseGitHubContinuationKey } from "./conversation.ts";
import { DEFAULT_GITHUB_API_URL, createGitHubClient, failureNotice, postIssueComment } from "./replies.ts";
import type { GitHubChannelOptions } from "./types.ts";
import { handleGitHubWebhook } from "./webhook.ts";

export const GITHUB_WEBHOOK_PATH = "/webhook";

export function githubChannel(options: GitHubChannelOptions = {}): ChannelDefinition {
  const secret = () => options.secret ?? readEnv("GITHUB_WEBHOOK_SECRET");
  const token = () => options.token ?? readEnv("GITHUB_TOKEN");
  let client: { octokit: Octokit; token: string | undefined; apiUrl: string } | undefined;
  const github = (): Octokit => {
    const apiUrl = options.apiUrl ?? readEnv("GITHUB_API_URL") ?? DEFAULT_GITHUB_API_URL;
    const current = token();
    // Settings are read when first needed (the environment may be filled after the file loads).
    if (!client || client.token !== current || client.apiUrl !== apiUrl) {
      client = { octokit: createGitHubClient({ apiUrl, token: current, ...(options.fetch ? { fetch: options.fetch } : {}) }), token: current, apiUrl };
    }
    return client.octokit;
  };
  let warnedNoToken = false;
  const repoList = options.repos ?? options.cursorAccount?.repos;
  const repos = repoList ? new Set(repoList.map((name) => name.toLowerCase())) : undefined;

  const reply = async (event: Readonly<SessionEvent>, channel: ChannelBinding, context: ChannelEventContext, body: string) => {
    const thread = threadOf(channel);
    if (!thread) return;
    // Delivery is at least once: an index already answered is not answered twice.
    if (typeof channel.state.repliedThrough === "number" && channel.state.repliedThrough >= event.index) return;
    if (!token()) {
      if (!warnedNoToken) context.logger.warn(`github channel ${context.channel.id}: no token (GITHUB_TOKEN), replies are not posted`);
      warnedNoToken = true;
      return;
    }
    await postIssueComment(github(), thread, body);
    channel.state.repliedThrough = event.index;
  };

  const definition = defineChannel({
    auth: [allowAll()],
    routes: [
      POST(GITHUB_WEBHOOK_PATH, {
        description: "GitHub webhook deliveries (signed with X-Hub-Signature-256)",
        bodySchema: v.unknown(),
        handler: (request, context) => handleGitHubWebhook(request, context, { options, secret, client: github, repos }),
      }),
    ],
    events: {
      async "message.completed"(event, channel, context) {
        const text = typeof event.data.text === "string" ? event.data.text.trim() : "";
        if (text === "" || event.data.finishReason === "tool_call") return;
        await reply(event, channel, context, text);
      },
      async "turn.failed"(event, channel, context) {
        await reply(event, channel, context, failureNotice(event.data.message));
      },
    },
  });
  return markChannelPack(definition, {
    kind: "github",
    ingressPath: GITHUB_WEBHOOK_PATH,
    requirements: () => [
      { name: "GITHUB_WEBHOOK_SECRET", purpose: "verifies deliveries (without it only --dev loopback deliveries are admitted)", present: Boolean(secret()) },
      { name: "GITHUB_TOKEN", purpose: "posts replies as comments", present: Boolean(token()) },
    ],
    notices: () =>
      options.cursorAccount
        ? [`cursorAccount is not used: deliveries come from a repository webhook to POST /v1/channels/<id>${GITHUB_WEBHOOK_PATH} (its repos still filter deliveries)`]
        : [],
  });
}

// --- internals ---

function threadOf(channel: ChannelBinding<ChannelState>): GitHubThread | undefined {
  return parseGitHubContinuationKey(channel.continuationToken) ?? undefined;
}
