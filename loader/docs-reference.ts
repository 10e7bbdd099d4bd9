/**
 * The reference pages of the docs site, generated from the code's own tables so they cannot
 * drift: routes from the agents' route table (`agentRoutes`) and the host router's own table
 * (`hostRoutes`, which the router dispatches through), events and agent config keys from tables
 * typed as exhaustive records over `EventType` and `keyof AgentConfig` (a new event type or key
 * does not compile until it is documented here), and module exports from the modules themselves.
 * Each page is one small function over its source, so a source can move without touching the rest.
 * @module
 */
import { type HostRoute, hostRoutes } from "../src/http/host-routes.ts";
import type { RouteDefinition } from "../src/http/route.ts";
import { agentRoutes } from "../src/http/routes/index.ts";
import type { AgentConfig } from "../src/base/definitions/project.ts";
import type { EventType } from "../src/base/events/vocabulary.ts";

export interface ReferencePage {
  /** File-like name below `reference/` (`routes` is `/docs/reference/routes`). */
  name: string;
  text: string;
}

export async function referencePages(): Promise<ReferencePage[]> {
  return [
    { name: "routes", text: routeReference(agentRoutes, Object.values(hostRoutes)) },
    { name: "events", text: eventReference(EVENT_DOCS) },
    { name: "agent-config", text: agentConfigReference(AGENT_CONFIG_DOCS) },
    { name: "modules", text: await moduleReference() },
  ];
}

/** The routes page: every agent route of the table, then every route the host router answers. */
export function routeReference(routes: readonly RouteDefinition[], host: readonly HostRoute[]): string {
  const rows = routes.map((route) => `| ${route.method} | \`${route.path}\` | ${route.auth === "agent" ? "agent chain" : "none"} | ${cell(route.summary)} |`);
  const hostRows = host.map((route) => {
    const paths = route.paths.map((path) => `\`${route.scope === "agent" ? `<base>${path}` : path}\``).join(", ");
    const where = [route.modes.length === 1 ? `${route.modes[0]} mode only` : "", route.absentWith ? `absent with ${route.absentWith}` : "", "presentWith" in route && route.presentWith ? `only with ${route.presentWith}` : ""].filter(Boolean).join("; ");
    return `| ${route.method} | ${paths} | ${cell(route.summary)}${where ? ` (${where}.)` : ""} |`;
  });
  return [
    "# Routes",
    "",
    "Every route of an agent, generated from the host's route table. In multi mode each path is",
    "under `/<slug>`; in single mode at the root. Routes marked dev mode exist only under `--dev`;",
    "routes marked `--no-control-plane` only with that flag. Errors are `{ok: false, error, message}`.",
    "A project's custom channels add their own routes at `/v1/channels/<channel id><path>`, listed",
    "by the agent's `GET /v1/info`.",
    "",
    "| Method | Path | Auth | What it does |",
    "|---|---|---|---|",
    ...rows,
    "",
    "## Host-level routes",
    "",
    "Answered by the host itself, from the table its router dispatches through. `<base>` is the",
    "agent's base: `/<slug>` in multi mode, empty in single mode. No auth: the pages carry no data;",
    "the API calls they make run the agent's chain.",
    "",
    "| Method | Path | What it does |",
    "|---|---|---|",
    ...hostRows,
    "",
  ].join("\n");
}

export interface EventDoc {
  phase: string;
  summary: string;
  /** The event's `data` members, as `name: type` with a note. */
  data: string;
}

/** The events page: one row per event type, grouped by phase in vocabulary order. */
export function eventReference(docs: Readonly<Record<EventType, EventDoc>>): string {
  const rows = Object.entries(docs).map(([type, doc]) => `| ${doc.phase} | \`${type}\` | ${cell(doc.summary)} | ${cell(doc.data)} |`);
  return [
    "# Events",
    "",
    "Each line of a session's stream is `{type, index, sessionId, turnId?, at, data}`; indexes are",
    "contiguous from 0. This table is checked against the host's event type list when it is built.",
    "",
    "| Phase | Type | Meaning | `data` |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

/** The `defineAgent` page: every key of the agent config. */
export function agentConfigReference(docs: Readonly<Record<keyof AgentConfig, string>>): string {
  return [
    "# `defineAgent` keys",
    "",
    "`bot/agent.ts` default-exports `defineAgent({...})` from `agent-serve`. Every key is optional.",
    "",
    "| Key | Meaning |",
    "|---|---|",
    ...Object.entries(docs).map(([key, doc]) => `| \`${key}\` | ${cell(doc)} |`),
    "",
  ].join("\n");
}

/** The public modules and what each exports, read from the modules themselves. */
export async function moduleReference(): Promise<string> {
  const sections: string[] = ["# Modules", "", "Runtime exports of each public entry point (types are listed in the guide).", ""];
  for (const [name, load, about] of MODULES) {
    const exports = Object.keys(await load()).sort();
    sections.push(`## \`${name}\``, "", about, "", exports.map((e) => `- \`${e}\``).join("\n"), "");
  }
  return sections.join("\n");
}

// --- internals ---

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

const MODULES: ReadonlyArray<readonly [string, () => Promise<Record<string, unknown>>, string]> = [
  ["agent-serve", () => import("../src/index.ts"), "The host (`createHost`), `defineAgent` and every other `define*` helper."],
  ["agent-serve/tools", () => import("../src/entries/tools.ts"), "`defineTool`: server and agent-execution tools."],
  ["agent-serve/hooks", () => import("../src/entries/hooks.ts"), "`defineHook({ events: { <type or *>: (event, ctx) => ... } })`: side effects after each recorded event; `ctx` has the session record, artifacts, host services and a logger."],
  ["agent-serve/channels", () => import("../src/entries/channels.ts"), "Auth policies for auth chains: `localDevStrict()` (the default), `localDev()`, `loopbackOnly()`, `bearerAuth(token or verifier)`, `allowAll()`."],
  ["agent-serve/artifacts", () => import("../src/entries/artifacts.ts"), "`defineArtifacts({ kinds, agentTool, max })`."],
  ["agent-serve/schedules", () => import("../src/entries/schedules.ts"), "`defineSchedule({ cron, markdown | run, catchUp })`."],
  ["agent-serve/evals", () => import("../src/entries/evals.ts"), "`defineEval` and matchers."],
  ["agent-serve/connections", () => import("../src/entries/connections.ts"), "`defineConnection` for MCP servers the agent calls."],
  ["agent-serve/skills", () => import("../src/entries/skills.ts"), "Skill helpers."],
  ["agent-serve/storage", () => import("../src/entries/storage.ts"), "Storage drivers and the driver contract."],
  ["agent-serve/inspect", () => import("../src/entries/inspect.ts"), "What a host makes of a project without serving it: `inspectProject` (the `GET /v1/info` object), its channels, its effective model, the harness allowlist and the unsandboxed-shell check."],
  ["agent-serve/testing", () => import("../src/testing.ts"), "Test helpers (the scripted model)."],
];

const EVENT_DOCS: Readonly<Record<EventType, EventDoc>> = {
  "session.started": { phase: "Session", summary: "The session was created.", data: "mode: chat or task; channel; title?" },
  "session.forked": { phase: "Session", summary: "The session was forked from another: the events before it are the source's up to atIndex (docs/guide/forking.md).", data: "sourceSessionId; atIndex" },
  "ab.assigned": { phase: "Session", summary: "The session joined an A/B experiment arm.", data: "experimentId; armId" },
  "session.waiting": { phase: "Session", summary: "A chat session is idle and ready for a follow-up.", data: "{}" },
  "session.completed": { phase: "Session", summary: "A task session ended successfully (its stream ends here).", data: "{}" },
  "session.failed": { phase: "Session", summary: "A task session ended in failure (its stream ends here).", data: "message" },
  "agent.bound": { phase: "Agent", summary: "Backend agent id and cloud conversation URL: a cloud turn's first event after turn.started (the local runtime does not emit it).", data: "agentId; url; runner (the runner's base URL)" },
  "message.received": { phase: "Input", summary: "A user message was accepted for a turn.", data: "text" },
  "turn.queued": { phase: "Turn", summary: "The turn waits for a free slot under concurrency.maxRunningTurns.", data: "position (1 is next)" },
  "turn.started": { phase: "Turn", summary: "The turn began running.", data: "{}" },
  "turn.completed": { phase: "Turn", summary: "The turn finished.", data: "usage: {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens}; model" },
  "turn.failed": { phase: "Turn", summary: "The turn ended without completing. A stop or a preempting follow-up reads `turn interrupted`; a closing host `host shutting down`.", data: "message" },
  "step.started": { phase: "Steps", summary: "A model step began.", data: "stepIndex" },
  "step.completed": { phase: "Steps", summary: "A model step ended.", data: "stepIndex; durationMs; finishReason" },
  "reasoning.appended": { phase: "Reasoning", summary: "A streamed piece of reasoning.", data: "delta" },
  "reasoning.completed": { phase: "Reasoning", summary: "A reasoning block ended.", data: "text" },
  "message.appended": { phase: "Reply", summary: "A streamed piece of the reply.", data: "delta" },
  "message.completed": { phase: "Reply", summary: "An assistant message is complete; finishReason tool_call marks an intermediate one.", data: "text; finishReason: stop, tool_call, length, content_filter, error or other" },
  "actions.requested": { phase: "Tools", summary: "The model called tools (arguments validated).", data: "actions: [{toolCallId, toolName, input}]" },
  "action.result": { phase: "Tools", summary: "A tool call's outcome; pair with actions.requested by toolCallId.", data: "toolCallId; toolName; output; isError" },
  "action.approval_requested": { phase: "Approvals", summary: "A call waits for a human decision.", data: "callId; toolName; input" },
  "action.approval_resolved": { phase: "Approvals", summary: "The decision on a parked call.", data: "callId; decision: approve or deny" },
  "action.client_requested": { phase: "Tools", summary: "The model called a tool the front end runs; the turn waits for its result (AG-UI front-end tools).", data: "callId; toolName; input" },
  "subagent.called": { phase: "Subagents", summary: "The agent delegated to a subagent.", data: "subagent; prompt" },
  "subagent.completed": { phase: "Subagents", summary: "A subagent finished.", data: "subagent; isError; result? or error?; usage?; model?" },
  "budget.exceeded": { phase: "Budgets", summary: "A budget limit was reached: the turn ends (completed) after it, and sends answer 429 budget_exceeded until the window resets (docs/guide/budgets.md).", data: "scope: turn, session, principalPerDay or agentPerDay; limit: tokens, costUsd, toolCalls or seconds; used; max; resetsAt? (per-day scopes)" },
  "artifact.tagged": { phase: "Artifacts", summary: "An artifact was tagged for the session, by host code or the tag tool.", data: "artifact: {id, kind, key, title, data, source: host or model}" },
};

const AGENT_CONFIG_DOCS: Readonly<Record<keyof AgentConfig, string>> = {
  model: 'Model id (`provider/model`, e.g. `openai/gpt-5`, `anthropic/claude-sonnet-4-5`, `openai-compatible/<id>`, `scripted`) or `{id, params}` with params such as `{id: "effort", value: "high"}`.',
  name: "Display name; defaults to the package or directory name.",
  description: "What the agent does; required on subagents.",
  instructions: "Inline instructions (the directory form uses `bot/instructions.md`).",
  runtime: "`local` (default): turns run in this process. `cloud`: turns run on an `agent-serve runner` (docs/guide/cloud-runtime.md).",
  local: "`{cwd?, workspaceDir?, sandbox?}`: where sessions' workspaces live (`cwd/<sessionId>`, or one shared `workspaceDir`), and `sandbox: true` to run shell commands and agent tools under bubblewrap (MCP calls then fail closed).",
  cloud: "Cloud defaults: repos (`{url, startingRef?}`), env, envVars; used with `runtime: cloud`.",
  hosting: "`{egressDomains?, secretNames?}`: read by deploy, ignored when serving locally.",
  concurrency: "`{maxRunningTurns?}`: at most this many turns run at once (1 to 200); the rest queue (`turn.queued`).",
  builtinTools: "`{reminders?: true}` adds `reminders_create`, `reminders_list` and `reminders_cancel`, bound to the conversation.",
  tools: "Allowlist of built-in harness tools (`shell`, `read`, `edit`, `grep`, `glob`, `ls`, `task`); unset means all, `[]` none. `mcp` is always added.",
  prices: "Per-model prices in USD per million tokens (`{input, output, cacheRead?, cacheWrite?}`), overriding the built-in catalog for `cost`.",
  experiments: "A/B experiments: each `{id, arms}` assigns sessions to arms stickily; see `/v1/abs`.",
  kv: "`{driver}`: any unstorage driver for `ctx.host.kv` instead of the host's own storage (the default, as durable and shared as the sessions).",
  a2a: "`{skills?, extendedSkills?, allowPrivatePushTargets?}`: the A2A agent card's skills (`{id, name, description, tags?, examples?}`) in place of the derived ones, skills only authenticated callers see through `GetExtendedAgentCard`, and whether push notifications may target loopback and private addresses outside `--dev` (docs/guide/a2a.md).",
  budgets: "`{turn?, session?, principalPerDay?, agentPerDay?}`, each `{tokens?, costUsd?, toolCalls?, seconds?}`: hard limits checked before every model call (subagents count toward their turn); a reached limit records `budget.exceeded`, ends the turn with what it produced, and sends answer 429 `budget_exceeded` until the window (a UTC day for the per-day scopes) resets (docs/guide/budgets.md).",
  webhooks: "`[{url, events, secret, id?, allowPrivateTarget?}]`: session events posted to each endpoint, signed the Standard Webhooks way with the `whsec_` secret, retried and durable (docs/guide/webhooks.md).",
};
