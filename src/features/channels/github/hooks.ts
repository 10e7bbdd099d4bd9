/**
 * Which hook a delivery goes to, with what subject, and the default principal of a turn.
 * @module
 */
import type { AuthContext } from "../../../base/auth.ts";
import type { GitHubPayload } from "./conversation.ts";
import type {
  GitHubChannelOptions,
  GitHubHookContext,
  GitHubHookResult,
  GitHubIssue,
  GitHubIssueComment,
  GitHubPullRequest,
} from "./types.ts";

/**
 * The sender of the delivery as the principal of the turn: the session belongs to the GitHub
 * user who opened the PR or wrote the comment.
 */
export function defaultGitHubAuth(context: Pick<GitHubHookContext, "sender" | "repository">): AuthContext {
  const login = context.sender?.login ?? "unknown";
  return {
    authenticator: "github",
    principalId: `github:${login}`,
    principalType: context.sender?.type === "Bot" ? "service" : "user",
    attributes: {
      login,
      ...(typeof context.sender?.id === "number" ? { id: context.sender.id } : {}),
      ...(context.repository ? { repository: context.repository.fullName } : {}),
    },
  };
}

/** Runs the hook for `context.event`: the specific one when set, else `onEvent`, else none (ignored). */
export async function runGitHubHook(options: GitHubChannelOptions, context: GitHubHookContext): Promise<GitHubHookResult> {
  const { payload, action } = context;
  if (context.event === "pull_request" && options.onPullRequest && isObject(payload.pull_request)) {
    return options.onPullRequest(context, { ...payload.pull_request, action } as GitHubPullRequest);
  }
  if (context.event === "issues" && options.onIssue && isObject(payload.issue)) {
    return options.onIssue(context, { ...payload.issue, action } as GitHubIssue);
  }
  if (context.event === "issue_comment" && options.onIssueComment && isObject(payload.comment) && isObject(payload.issue)) {
    const comment = {
      ...payload.comment,
      action,
      issue: { ...payload.issue, action } as GitHubIssue,
      onPullRequest: payload.issue.pull_request !== undefined && payload.issue.pull_request !== null,
    } as GitHubIssueComment;
    return options.onIssueComment(context, comment);
  }
  return options.onEvent ? options.onEvent(context, payload) : null;
}

/** Whether the delivery was caused by the bot itself (its comment, or any action it took). */
export function isFromBot(payload: GitHubPayload, botName: string | undefined): boolean {
  if (!botName) return false;
  const name = botName.toLowerCase();
  const matches = (login: unknown) =>
    typeof login === "string" && (login.toLowerCase() === name || login.toLowerCase() === `${name}[bot]`);
  return matches(payload.comment?.user?.login) || matches(payload.sender?.login);
}

// --- internals ---

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
