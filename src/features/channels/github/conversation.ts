/**
 * Conversations of the GitHub pack: one per pull request (`pr:<owner>/<repo>#<n>`) and one per
 * issue (`issue:<owner>/<repo>#<n>`), so every delivery about the same thread continues the same
 * session (docs/guide/github.md).
 * @module
 */

export interface GitHubThread {
  kind: "pr" | "issue";
  owner: string;
  repo: string;
  number: number;
}

/** The thread a PR key names, e.g. `pr:acme/checkout#12` → `{owner: "acme", repo: "checkout", number: 12}`. */
export function parseGitHubPrContinuationKey(key: string): { owner: string; repo: string; number: number } | null {
  const thread = parseGitHubContinuationKey(key);
  return thread?.kind === "pr" ? { owner: thread.owner, repo: thread.repo, number: thread.number } : null;
}

/** The thread a `pr:` or `issue:` key names, or null for any other string. */
export function parseGitHubContinuationKey(key: string): GitHubThread | null {
  const match = /^(pr|issue):([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)#([1-9][0-9]{0,9})$/.exec(key);
  if (!match) return null;
  return { kind: match[1] as "pr" | "issue", owner: match[2]!, repo: match[3]!, number: Number(match[4]) };
}

export function toGitHubContinuationKey(thread: GitHubThread): string {
  return `${thread.kind}:${thread.owner}/${thread.repo}#${thread.number}`;
}

/**
 * The thread a delivery is about, from its payload: pull request events and comments on pull
 * requests belong to the PR, issue events and comments to the issue. Events about no single
 * thread (push, release, …) have none.
 */
export function threadOfDelivery(event: string, payload: GitHubPayload): GitHubThread | undefined {
  const owner = payload.repository?.owner?.login;
  const repo = payload.repository?.name;
  if (typeof owner !== "string" || typeof repo !== "string") return undefined;
  const pr = PR_EVENTS.has(event) ? payload.pull_request : undefined;
  if (pr && isThreadNumber(pr.number)) return { kind: "pr", owner, repo, number: pr.number };
  const issue = ISSUE_EVENTS.has(event) ? payload.issue : undefined;
  if (issue && isThreadNumber(issue.number)) {
    // GitHub models every PR as an issue too; an issue that carries `pull_request` is a PR.
    return { kind: issue.pull_request ? "pr" : "issue", owner, repo, number: issue.number };
  }
  return undefined;
}

/** The members of a webhook payload the pack reads; everything else is passed through untouched. */
export interface GitHubPayload {
  action?: string;
  repository?: { name?: string; full_name?: string; owner?: { login?: string } };
  sender?: GitHubUser;
  pull_request?: { number?: unknown; [key: string]: unknown };
  issue?: { number?: unknown; pull_request?: unknown; [key: string]: unknown };
  comment?: { user?: GitHubUser; body?: unknown; [key: string]: unknown };
  [key: string]: unknown;
}

export interface GitHubUser {
  login?: string;
  id?: number;
  type?: string;
  [key: string]: unknown;
}

// --- internals ---

const PR_EVENTS = new Set(["pull_request", "pull_request_review", "pull_request_review_comment", "pull_request_review_thread"]);
const ISSUE_EVENTS = new Set(["issues", "issue_comment"]);

function isThreadNumber(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}
