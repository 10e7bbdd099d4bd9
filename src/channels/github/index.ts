/**
 * `agent-serve/channels/github`: the GitHub channel pack. Agent SDK projects import the same
 * names from `@cursor/bdk/channels/github`.
 * @example
 * // bot/channels/github.ts
 * import { githubChannel, defaultGitHubAuth } from "agent-serve/channels/github";
 * export default githubChannel({
 *   botName: "review-bot",
 *   onPullRequest: (ctx, pr) =>
 *     pr.draft || !["opened", "ready_for_review"].includes(pr.action ?? "") ? null : { auth: defaultGitHubAuth(ctx) },
 * });
 * @module
 */
export { githubChannel, GITHUB_WEBHOOK_PATH } from "./channel.ts";
export {
  parseGitHubContinuationKey,
  parseGitHubPrContinuationKey,
  toGitHubContinuationKey,
} from "./conversation.ts";
export type { GitHubPayload, GitHubThread, GitHubUser } from "./conversation.ts";
export { defaultGitHubAuth } from "./hooks.ts";
export { signGitHubPayload, verifyGitHubSignature } from "./signature.ts";
export type {
  GitHubChannelOptions,
  GitHubHook,
  GitHubHookContext,
  GitHubHookResult,
  GitHubIssue,
  GitHubIssueComment,
  GitHubPullRequest,
  GitHubTask,
  GitHubTurn,
} from "./types.ts";
