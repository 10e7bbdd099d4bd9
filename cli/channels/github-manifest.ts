/**
 * The GitHub App manifest the GitHub pack needs (docs/guide/github.md): the webhook URL, the
 * events it handles (pull_request, issues, issue_comment) and the permissions to read them and
 * comment back (`POST /repos/{owner}/{repo}/issues/{n}/comments` serves issues and pull requests).
 * @module
 */

export const GITHUB_EVENTS = ["pull_request", "issues", "issue_comment"];

export const GITHUB_PERMISSIONS = { metadata: "read", contents: "read", issues: "write", pull_requests: "write" };

export function githubManifest(name: string, webhookUrl: string, homepage: string): Record<string, unknown> {
  return {
    name,
    url: homepage,
    hook_attributes: { url: webhookUrl, active: true },
    public: false,
    default_permissions: GITHUB_PERMISSIONS,
    default_events: GITHUB_EVENTS,
  };
}
