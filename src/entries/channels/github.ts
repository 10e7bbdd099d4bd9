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
export { githubChannel, GITHUB_WEBHOOK_PATH } from "../../features/channels/github/channel.ts";
export {
  parseGitHubContinuationKey,
  parseGitHubPrContinuationKey,
  toGitHubContinuationKey,
} from "../../features/channels/github/conversation.ts";
export type { GitHubPayload, GitHubThread, GitHubUser } from "../../features/channels/github/conversation.ts";
export { defaultGitHubAuth } from "../../features/channels/github/hooks.ts";
export { signGitHubPayload, verifyGitHubSignature } from "../../features/channels/github/signature.ts";
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
} from "../../features/channels/github/types.ts";
