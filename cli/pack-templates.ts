/**
 * The files `init --template github` and `init --template slack` add to the basic project: a
 * channel file using the pack, instructions for its job, and an example of the environment it
 * reads (docs/guide/github.md, docs/guide/slack.md).
 * @module
 */

export function githubFiles(): Record<string, string> {
  return {
    "bot/channels/github.ts": lines(
      `import { defaultGitHubAuth, githubChannel } from "agent-serve/channels/github";`,
      ``,
      `// Deliveries: POST /<slug>/v1/channels/github/webhook (set-up: docs/guide/github.md).`,
      `// Settings come from GITHUB_WEBHOOK_SECRET, GITHUB_TOKEN and GITHUB_API_URL (see .env.example).`,
      `export default githubChannel({`,
      `  // The account the token belongs to: its own comments never start turns.`,
      `  botName: "my-review-bot",`,
      `  // A pull request opened or marked ready for review starts (or continues) pr:<owner>/<repo>#<n>.`,
      `  onPullRequest: (ctx, pr) =>`,
      `    pr.draft || !["opened", "ready_for_review"].includes(pr.action ?? "") ? null : { auth: defaultGitHubAuth(ctx) },`,
      `  // A comment that mentions the bot continues the PR's or issue's conversation.`,
      `  onIssueComment: (ctx, comment) =>`,
      `    comment.action === "created" && comment.body?.includes("@my-review-bot")`,
      `      ? { auth: defaultGitHubAuth(ctx), message: comment.body }`,
      `      : null,`,
      `});`,
    ),
    "bot/instructions.md": lines(
      `You review pull requests and answer questions on issues.`,
      ``,
      `- Start with a one-line verdict, then list concrete findings with file and line.`,
      `- Be brief; your answer is posted as a comment.`,
    ),
    ".env.example": lines(
      `# Copy to your deployment's environment (agent-serve does not read this file).`,
      `GITHUB_WEBHOOK_SECRET=choose-a-long-random-string`,
      `GITHUB_TOKEN=github_pat_or_app_installation_token`,
      `# GitHub Enterprise Server: https://<host>/api/v3`,
      `GITHUB_API_URL=https://api.github.com`,
    ),
  };
}

export function slackFiles(): Record<string, string> {
  return {
    "bot/channels/slack.ts": lines(
      `import { slackChannel } from "agent-serve/channels/slack";`,
      ``,
      `// Events API request URL: POST /<slug>/v1/channels/slack/events (set-up: docs/guide/slack.md).`,
      `// Settings come from SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN (see .env.example).`,
      `export default slackChannel({`,
      `  // "post": one reply when the turn ends; "stream": the reply grows while the model writes.`,
      `  reply: { mode: "post", status: { reaction: "eyes" } },`,
      `  // Channel ids where every top-level message wakes the agent, not only mentions.`,
      `  watchChannels: [],`,
      `});`,
    ),
    "bot/instructions.md": lines(
      `You are a helpful teammate in Slack.`,
      ``,
      `- Answer in a few short lines; use Slack formatting (*bold*, \`code\`, bullet lists).`,
      `- Ask one clarifying question when a request is ambiguous.`,
    ),
    ".env.example": lines(
      `# Copy to your deployment's environment (agent-serve does not read this file).`,
      `SLACK_SIGNING_SECRET=from-basic-information-app-credentials`,
      `SLACK_BOT_TOKEN=xoxb-from-oauth-and-permissions`,
    ),
  };
}

// --- internals ---

function lines(...text: string[]): string {
  return `${text.join("\n")}\n`;
}
