/**
 * agent-serve's own authoring skills, written by `install-skills` as Agent Skills (`SKILL.md`)
 * for coding assistants. Each is short and points at the guide pages the package ships
 * (`node_modules/agent-serve/docs/guide/`), which stay the reference; the examples are the guides'.
 * @module
 */

export interface AuthoringSkill {
  /** The folder name and the frontmatter `name`. */
  name: string;
  description: string;
  body: string;
}

const GUIDE = "node_modules/agent-serve/docs/guide";

export const AUTHORING_SKILLS: AuthoringSkill[] = [
  {
    name: "agent-serve-tools",
    description: "Write a server tool for an agent-serve agent (bot/tools/<name>.ts with defineTool): input schema, approval, effect, calling it without a model.",
    body: `# Writing an agent-serve tool

A tool is \`bot/tools/<name>.ts\`; the file name is the tool name.

\`\`\`ts
import { defineTool } from "agent-serve/tools";
import * as v from "valibot";

export default defineTool({
  description: "Refund an order",
  inputSchema: v.object({ orderId: v.string(), amount: v.number() }),
  needsApproval: (input) => input.amount > 100, // parks the call until a human decides
  async execute(input, ctx) {
    return { refunded: input.amount };
  },
});
\`\`\`

- The input is validated (any Standard Schema: valibot, zod) before \`execute\` runs.
- \`ctx.host.kv\` is a durable JSON store per agent (\`get\`, \`put\`, \`delete\`, \`list(prefix)\`).
- \`outputSchema\` checks results; \`effect: "read" | "write"\` is shown in \`/v1/info\`.

Check it: \`npx agent-serve validate\`, then \`npx agent-serve call <name> --input '{"orderId":"A1","amount":20}'\`
(\`POST /v1/tools/<name>\`, no model needed). In a turn, the scripted model calls it with the line
\`/tool <name> {"orderId":"A1","amount":20}\` (see the agent-serve-testing skill).

Reference: \`${GUIDE}/agent-projects.md\` ("A server tool").
`,
  },
  {
    name: "agent-serve-channels",
    description: "Add a channel to an agent-serve agent: a custom defineChannel with validated routes and reply delivery, or the Slack and GitHub packs.",
    body: `# Writing an agent-serve channel

A channel is \`bot/channels/<id>.ts\`; it mounts at \`/<slug>/v1/channels/<id>/...\`
(\`/v1/channels/<id>/...\` in single mode). \`npx agent-serve init --template channel\` scaffolds one.

\`\`\`ts
import { POST, defineChannel, localDevStrict } from "agent-serve/channels";
import * as v from "valibot";

export default defineChannel({
  state: { ticketId: "" },
  auth: [localDevStrict()],
  routes: [
    POST("/tickets", {
      description: "Open or continue a ticket",
      bodySchema: v.object({ ticketId: v.string(), text: v.string() }),
      handler: async (request, { body, send }) => {
        const session = await send(body.text, { continuationToken: \`ticket:\${body.ticketId}\`, state: { ticketId: body.ticketId } });
        const done = await session.waitForCompletion();
        return { sessionId: session.sessionId, reply: done.result };
      },
    }),
  ],
});
\`\`\`

- Every route needs a schema: \`bodySchema\` for POST, \`querySchema\` for GET.
- The continuation token keys the conversation: the same token continues the same session.
- Deliver replies from \`events\` (e.g. \`"message.completed"\`), with an idempotency key.
- Slack and GitHub: \`slackChannel()\` from \`agent-serve/channels/slack\`, \`githubChannel()\` from
  \`agent-serve/channels/github\`; \`npx agent-serve slack manifest\` / \`github manifest\` print the
  app manifests, \`slack check\` and \`github redeliver <file>\` test the set-up.

Reference: \`${GUIDE}/channels.md\`, \`${GUIDE}/slack.md\`, \`${GUIDE}/github.md\`.
`,
  },
  {
    name: "agent-serve-schedules",
    description: "Schedule work for an agent-serve agent: a markdown schedule (cron frontmatter and a prompt) or a code schedule with defineSchedule.",
    body: `# Writing an agent-serve schedule

Cron is 5 fields, UTC, minute granularity. Under \`--dev\` nothing fires by itself.

A markdown schedule, \`bot/schedules/<name>.md\`: each firing starts a task session with the body as the message.

\`\`\`md
---
cron: "0 3 * * *"
---
Write the nightly digest.
\`\`\`

A code schedule, \`bot/schedules/<name>.ts\`:

\`\`\`ts
import { defineSchedule } from "agent-serve/schedules";

export default defineSchedule({
  cron: "30 8 * * 1-5",
  async run({ callTool, receive }) {
    const { result } = await callTool("add", { a: 40, b: 2 });
    await receive("http", { message: \`weekday digest: \${JSON.stringify(result)}\`, title: "weekday digest" });
  },
});
\`\`\`

A slot missed while the host was down is logged and not fired late unless \`catchUp: true\`.
Check with \`npx agent-serve info\` (lists the schedules) and \`npx agent-serve validate\`.

Reference: \`${GUIDE}/agent-projects.md\` ("Schedules and reminders").
`,
  },
  {
    name: "agent-serve-evals",
    description: "Write evals for an agent-serve agent (evals/**/*.eval.ts with defineEval) and run them with agent-serve eval.",
    body: `# Writing agent-serve evals

An eval is \`evals/<name>.eval.ts\` in the project:

\`\`\`ts
import { defineEval, includes, satisfies } from "agent-serve/evals";

export default defineEval({
  tags: ["smoke"],
  description: "Answers a greeting",
  async test(t) {
    const reply = await t.send("Hi, who are you?");
    t.succeeded();
    t.notCalledTool("shell");
    await t.check(reply, satisfies((text: string) => text.trim().length > 0, "a non-empty reply"));
    await t.check(reply, includes(/who are you/i));
  },
});
\`\`\`

Run: \`npx agent-serve eval\` (exits 1 when a case fails; \`--list\`, \`--tag <tag>\`,
\`--filter <id>\`, \`--json\`). Offline, with \`model: "scripted"\`, send scripted lines
(agent-serve-testing skill) to test tools and flow without a model.

Reference: \`${GUIDE}/cli.md\` and the project's own evals.
`,
  },
  {
    name: "agent-serve-testing",
    description: "Test an agent-serve agent offline with the scripted model: deterministic replies and tool calls, run, call and eval without credentials.",
    body: `# Testing with the scripted model

Set \`model: "scripted"\` in \`bot/agent.ts\` (\`defineAgent({ model: "scripted" })\`) for tests.
It reads the latest user message line by line:

| Line | Effect |
|---|---|
| \`/reply <text>\` | the final answer is exactly \`<text>\` |
| \`/tool <name> <json>\` | one step calling tool \`<name>\` with \`<json>\` |
| \`/reason <text>\` | streams reasoning before answering |
| \`/sleep <ms>\` | waits before answering |
| \`/fail <message>\` | the model call fails (\`turn.failed\`) |
| anything else | the answer is \`echo: <text>\` |

- One turn: \`npx agent-serve run --message '/tool add {"a":1,"b":2}'\`.
- A tool alone: \`npx agent-serve call add --input '{"a":1,"b":2}'\`.
- The events of a session: \`npx agent-serve logs <sessionId>\`; tool calls: \`trajectory <sessionId>\`.
- Evals: \`npx agent-serve eval\` (agent-serve-evals skill).

Reference: \`${GUIDE}/getting-started.md\` ("The scripted model").
`,
  },
];

/** The SKILL.md text of one skill: Agent Skills frontmatter (`name`, `description`) and the body. */
export function skillMarkdown(skill: AuthoringSkill): string {
  return `---\nname: ${skill.name}\ndescription: ${JSON.stringify(skill.description)}\n---\n\n${skill.body}`;
}
