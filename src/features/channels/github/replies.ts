/**
 * Replies of the GitHub pack: issue comments (pull requests are issues too) posted through the
 * REST API with `@octokit/core`, at the configured base URL (docs/guide/github.md).
 * @module
 */
import { Octokit } from "@octokit/core";
import type { GitHubThread } from "./conversation.ts";

export const DEFAULT_GITHUB_API_URL = "https://api.github.com";
/** GitHub rejects comment bodies over 65,536 characters. */
const MAX_COMMENT = 65_000;

export interface GitHubClientSettings {
  apiUrl: string;
  token: string | undefined;
  fetch?: typeof fetch;
}

/**
 * A REST client for `apiUrl` that sends `Authorization: Bearer <token>` (accepted for every kind
 * of GitHub token, where Octokit's own token auth would send the legacy `token` scheme).
 */
export function createGitHubClient(settings: GitHubClientSettings): Octokit {
  const octokit = new Octokit({
    baseUrl: settings.apiUrl.replace(/\/+$/, ""),
    userAgent: "agent-serve",
    ...(settings.fetch ? { request: { fetch: settings.fetch } } : {}),
  });
  const { token } = settings;
  if (token) {
    octokit.hook.before("request", (options) => {
      options.headers.authorization = `Bearer ${token}`;
    });
  }
  return octokit;
}

/** `POST /repos/{owner}/{repo}/issues/{n}/comments`; resolves with the new comment's id. */
export async function postIssueComment(octokit: Octokit, thread: GitHubThread, body: string): Promise<number> {
  const text = body.length > MAX_COMMENT ? `${body.slice(0, MAX_COMMENT)}\n\n… (cut)` : body;
  const response = await octokit.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
    owner: thread.owner,
    repo: thread.repo,
    issue_number: thread.number,
    body: text,
  });
  return Number(response.data.id);
}

/** The short notice posted when a turn fails. */
export function failureNotice(message: unknown): string {
  const reason = typeof message === "string" && message.trim() !== "" ? message.trim().slice(0, 300) : "unknown error";
  return `⚠️ I could not finish this (${reason}).`;
}
