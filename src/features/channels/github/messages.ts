/**
 * The prompt of a turn whose hook gave no `message`: what happened, where, by whom, and the
 * title, body or comment text, so a model can act on the delivery without the raw payload.
 * @module
 */
import type { GitHubPayload, GitHubThread } from "./conversation.ts";

/** Longest body or comment text copied into a default prompt. */
const MAX_TEXT = 8_000;

export function defaultGitHubMessage(event: string, payload: GitHubPayload, thread: GitHubThread | undefined): string {
  const where = thread ? `${thread.owner}/${thread.repo}#${thread.number}` : (payload.repository?.full_name ?? "a repository");
  const by = payload.sender?.login ? ` by @${payload.sender.login}` : "";
  const action = payload.action ? ` ${payload.action}` : "";
  if (event === "issue_comment" && payload.comment) {
    const kind = thread?.kind === "pr" ? "pull request" : "issue";
    return lines(
      `@${payload.comment.user?.login ?? "someone"} commented on ${kind} ${where}${titleOf(payload.issue)}:`,
      "",
      clip(payload.comment.body),
    );
  }
  if (event === "pull_request" && payload.pull_request) {
    const pr = payload.pull_request;
    const refs = refOf(pr.head) && refOf(pr.base) ? `\nBranch ${refOf(pr.head)} into ${refOf(pr.base)}.` : "";
    return lines(`Pull request ${where}${action}${by}${titleOf(pr)}`, urlOf(pr) + refs, "", clip(pr.body));
  }
  if (event === "issues" && payload.issue) {
    return lines(`Issue ${where}${action}${by}${titleOf(payload.issue)}`, urlOf(payload.issue), "", clip(payload.issue.body));
  }
  return lines(`GitHub ${event}${action} event on ${where}${by}.`, "", clip(JSON.stringify(payload)));
}

// --- internals ---

function titleOf(item: Record<string, unknown> | undefined): string {
  return typeof item?.title === "string" ? `: ${item.title}` : "";
}

function urlOf(item: Record<string, unknown>): string {
  return typeof item.html_url === "string" ? item.html_url : "";
}

function refOf(value: unknown): string | undefined {
  const ref = (value as { ref?: unknown } | undefined)?.ref;
  return typeof ref === "string" ? ref : undefined;
}

function clip(text: unknown): string {
  if (typeof text !== "string" || text.trim() === "") return "(no description)";
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}\n… (cut at ${MAX_TEXT} characters)` : text;
}

function lines(...parts: string[]): string {
  return parts.join("\n").replace(/\n{3,}/g, "\n\n").trim();
}
