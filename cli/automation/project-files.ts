/**
 * An automation as an agent project (docs/guide/cli.md "convert-automation"): `bot/agent.ts`
 * (model and tools allowlist), and by trigger a markdown schedule holding the prompt (cron), or
 * the GitHub or Slack channel with the hook that starts a turn, the prompt as the instructions.
 * @module
 */
import type { Automation } from "./automation.ts";

const HOOKS = { pull_request: ["onPullRequest", "pr"], issues: ["onIssue", "issue"], issue_comment: ["onIssueComment", "comment"] } as const;

export function automationProject(automation: Automation): Record<string, string> {
  const files: Record<string, string> = {
    "package.json": `${JSON.stringify({ name: automation.name, private: true, type: "module" }, null, 2)}\n`,
    "bot/agent.ts": agentFile(automation),
  };
  const { trigger } = automation;
  if (trigger.kind === "cron") {
    files["bot/instructions.md"] = `You run the scheduled automation ${automation.name}: each run starts with its task as the message. Do the task, then reply with a short summary.\n`;
    files[`bot/schedules/${automation.name}.md`] = `---\ncron: ${JSON.stringify(trigger.cron)}\n---\n${automation.prompt}\n`;
    return files;
  }
  files["bot/instructions.md"] = `${automation.prompt}\n`;
  if (trigger.kind === "slack") {
    files["bot/channels/slack.ts"] = [
      `import { slackChannel } from "agent-serve/channels/slack";`,
      "",
      "// A mention of the app (or a direct message) starts a conversation in its thread. Set-up:",
      "// SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET; `agent-serve slack manifest` prints the app manifest.",
      "export default slackChannel({});",
      "",
    ].join("\n");
    return files;
  }
  const [hook, subject] = HOOKS[trigger.event];
  const condition = trigger.actions.length === 0 ? "true" : `${JSON.stringify(trigger.actions)}.includes(${subject}.action ?? "")`;
  files["bot/channels/github.ts"] = [
    `import { defaultGitHubAuth, githubChannel } from "agent-serve/channels/github";`,
    "",
    `// ${trigger.event} deliveries${trigger.actions.length ? ` (${trigger.actions.join(", ")})` : ""} start a turn; the agent's replies become comments.`,
    "// Set-up: GITHUB_WEBHOOK_SECRET and GITHUB_TOKEN; `agent-serve github manifest` prints a GitHub App manifest.",
    "export default githubChannel({",
    `  ${hook}: (ctx, ${subject}) => (${condition} ? { auth: defaultGitHubAuth(ctx) } : null),`,
    "});",
    "",
  ].join("\n");
  return files;
}

// --- internals ---

function agentFile(automation: Automation): string {
  const fields = [
    ...(automation.model ? [`model: ${JSON.stringify(automation.model)}`] : []),
    ...(automation.tools ? [`tools: ${JSON.stringify(automation.tools)}`] : []),
    `description: ${JSON.stringify(`Converted from the automation ${automation.name}`)}`,
  ];
  return [`import { defineAgent } from "agent-serve";`, "", `export default defineAgent({ ${fields.join(", ")} });`, ""].join("\n");
}
