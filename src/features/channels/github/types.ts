/**
 * Options, hook context and hook results of `githubChannel` (docs/guide/github.md).
 * @module
 */
import type { Octokit } from "@octokit/core";
import type { AuthContext } from "../../../base/auth.ts";
import type { ChannelServices, ChannelState } from "../../../base/definitions/channels.ts";
import type { GitHubPayload, GitHubThread, GitHubUser } from "./conversation.ts";

export interface GitHubChannelOptions {
  /** Webhook secret that signs deliveries (`X-Hub-Signature-256`). @default env GITHUB_WEBHOOK_SECRET */
  secret?: string;
  /** Token replies are posted with (`Authorization: Bearer <token>`). @default env GITHUB_TOKEN */
  token?: string;
  /** REST API base URL (GitHub Enterprise Server: `https://<host>/api/v3`). @default env GITHUB_API_URL, else `https://api.github.com` */
  apiUrl?: string;
  /** The account replies are posted as: its comments never start turns. Case-insensitive; `<name>[bot]` matches too. */
  botName?: string;
  /** `pull_request` deliveries. */
  onPullRequest?: GitHubHook<GitHubPullRequest>;
  /** `issues` deliveries. */
  onIssue?: GitHubHook<GitHubIssue>;
  /** `issue_comment` deliveries (comments on issues and on pull requests). */
  onIssueComment?: GitHubHook<GitHubIssueComment>;
  /** Any delivery no other hook handles (including those three when their hook is not set). */
  onEvent?: GitHubHook<GitHubPayload>;
  /** Only deliveries from these repositories (`owner/repo`, case-insensitive) are handled; others are ignored. @default every repository */
  repos?: string[];
  /**
   * The Agent SDK's account connection. Accepted so its projects load unchanged: `repos` acts as
   * {@link GitHubChannelOptions.repos}; deliveries still come from a webhook (`validate` says so).
   */
  cursorAccount?: { repos?: string[] };
  /** How long an accepted `X-GitHub-Delivery` is remembered as a duplicate. @default 7 days */
  dedupeWindowMs?: number;
  /** `fetch` the REST client uses (tests, proxies). @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * A hook: `{auth, message?}` runs a model turn as that principal on the delivery's conversation
 * (answered 202), `{task}` runs host work under `waitUntil` (202), `null` ignores the delivery
 * (200 `{ok: true, ignored: true}`).
 */
export type GitHubHook<Subject> = (
  context: GitHubHookContext,
  subject: Subject,
) => GitHubHookResult | Promise<GitHubHookResult>;

export type GitHubHookResult = GitHubTurn | GitHubTask | null | undefined;

export interface GitHubTurn {
  auth: AuthContext;
  /** The prompt. @default a description of the event with the title, body or comment */
  message?: string;
  /** For events about no pull request or issue: the conversation to continue. @default a new session per delivery */
  continuationToken?: string;
  /** Session title when the turn starts a session. @default the PR or issue title */
  title?: string;
}

export interface GitHubTask {
  task: (context: GitHubHookContext) => unknown;
}

/** The first argument of every hook. */
export interface GitHubHookContext extends ChannelServices<ChannelState> {
  /** `X-GitHub-Event`, e.g. `pull_request`. */
  event: string;
  action: string | undefined;
  /** `X-GitHub-Delivery`. */
  deliveryId: string;
  payload: GitHubPayload;
  sender: GitHubUser | undefined;
  repository: { owner: string; name: string; fullName: string } | undefined;
  /** The PR or issue the delivery is about, and its conversation key (`pr:<owner>/<repo>#<n>`). */
  thread: GitHubThread | undefined;
  continuationToken: string | undefined;
  /** The REST client the channel replies with (base URL and token applied). */
  github: Octokit;
}

/** `payload.pull_request` with the delivery's `action`. */
export interface GitHubPullRequest {
  action: string | undefined;
  number: number;
  title?: string;
  body?: string | null;
  draft?: boolean;
  html_url?: string;
  user?: GitHubUser;
  [key: string]: unknown;
}

/** `payload.issue` with the delivery's `action`. */
export interface GitHubIssue {
  action: string | undefined;
  number: number;
  title?: string;
  body?: string | null;
  html_url?: string;
  user?: GitHubUser;
  /** Present when the issue is a pull request. */
  pull_request?: unknown;
  [key: string]: unknown;
}

/** `payload.comment` with the delivery's `action` and the issue (or PR) it is on. */
export interface GitHubIssueComment {
  action: string | undefined;
  body?: string;
  user?: GitHubUser;
  html_url?: string;
  issue: GitHubIssue;
  /** Whether the comment is on a pull request. */
  onPullRequest: boolean;
  [key: string]: unknown;
}
