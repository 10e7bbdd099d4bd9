/**
 * The automation description `convert-automation` reads (docs/guide/cli.md "convert-automation"):
 * YAML or JSON with a `trigger` (a cron, a GitHub event, or a Slack mention), the `prompt`, an
 * optional `tools` allowlist and `model`. Every problem is collected and named, with what to write.
 * @module
 */
import { parse } from "yaml";
import { UsageError } from "../io.ts";

/** The harness tools an agent's `tools` allowlist may name (docs/guide/agent-projects.md "Agent configuration"). */
export const HARNESS_TOOLS = ["shell", "read", "edit", "grep", "glob", "ls", "task"];
export const GITHUB_EVENTS = ["pull_request", "issues", "issue_comment"] as const;

export type Trigger =
  | { kind: "cron"; cron: string }
  | { kind: "github"; event: (typeof GITHUB_EVENTS)[number]; actions: string[] }
  | { kind: "slack" };

export interface Automation {
  /** The project's name (its package name and folder). */
  name: string;
  trigger: Trigger;
  prompt: string;
  /** The harness tools allowlist; unset keeps the agent's default. */
  tools?: string[];
  model?: string;
}

/** Parses and checks `text` (from `file`); `fallbackName` names an automation without `name`. */
export function parseAutomation(text: string, file: string, fallbackName: string): Automation {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not YAML or JSON: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new UsageError(`${file} must be a mapping with trigger and prompt (see docs/guide/cli.md "convert-automation")`);
  const raw = data as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(raw)) {
    if (!["name", "trigger", "prompt", "tools", "model"].includes(key)) problems.push(`unknown key ${key} (known: name, trigger, prompt, tools, model)`);
  }
  const name = slugName(typeof raw.name === "string" ? raw.name : fallbackName);
  if (!name) problems.push("name must hold letters or digits");
  const prompt = typeof raw.prompt === "string" ? raw.prompt.trim() : "";
  if (!prompt) problems.push("prompt is missing: the text the agent acts on at each trigger");
  const trigger = parseTrigger(raw.trigger, problems);
  let tools: string[] | undefined;
  if (raw.tools !== undefined) {
    if (!Array.isArray(raw.tools) || raw.tools.some((t) => typeof t !== "string")) problems.push(`tools must be a list of harness tool names (${HARNESS_TOOLS.join(", ")})`);
    else {
      tools = raw.tools as string[];
      const unknown = tools.filter((t) => !HARNESS_TOOLS.includes(t));
      if (unknown.length > 0) problems.push(`unknown tools ${unknown.join(", ")} (the harness tools are ${HARNESS_TOOLS.join(", ")}; mcp is always added)`);
    }
  }
  if (raw.model !== undefined && (typeof raw.model !== "string" || raw.model === "")) problems.push('model must be a "provider/id" string, e.g. "openai/gpt-5"');
  if (problems.length > 0 || !trigger) throw new UsageError(`${file} is not a valid automation:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  return { name, trigger, prompt, ...(tools ? { tools } : {}), ...(typeof raw.model === "string" ? { model: raw.model } : {}) };
}

// --- internals ---

function parseTrigger(value: unknown, problems: string[]): Trigger | undefined {
  const hint = 'trigger must be one of: {cron: "0 9 * * 1-5"}, {github: {event: pull_request, actions: [opened]}}, {slack: mention}';
  if (typeof value !== "object" || value === null) {
    problems.push(value === undefined ? `trigger is missing: ${hint}` : hint);
    return undefined;
  }
  const t = value as Record<string, unknown>;
  const keys = Object.keys(t);
  if (keys.length !== 1) {
    problems.push(`trigger names exactly one of cron, github, slack (got ${keys.join(", ") || "none"})`);
    return undefined;
  }
  if (typeof t.cron === "string") {
    if (t.cron.trim().split(/\s+/).length !== 5) problems.push(`trigger.cron must have 5 fields (minute hour day month weekday, UTC), got "${t.cron}"`);
    return { kind: "cron", cron: t.cron.trim() };
  }
  if (t.github !== undefined) {
    const g = typeof t.github === "string" ? { event: t.github } : (t.github as Record<string, unknown>);
    const event = g?.event;
    if (typeof event !== "string" || !(GITHUB_EVENTS as readonly string[]).includes(event)) {
      problems.push(`trigger.github.event must be one of ${GITHUB_EVENTS.join(", ")}`);
      return undefined;
    }
    const actions = g.actions === undefined ? [] : g.actions;
    if (!Array.isArray(actions) || actions.some((a) => typeof a !== "string")) {
      problems.push("trigger.github.actions must be a list of actions, e.g. [opened, ready_for_review]");
      return undefined;
    }
    return { kind: "github", event: event as (typeof GITHUB_EVENTS)[number], actions: actions as string[] };
  }
  if (t.slack !== undefined) {
    if (t.slack !== "mention") problems.push("trigger.slack must be mention (the app is mentioned, or sent a direct message)");
    return { kind: "slack" };
  }
  problems.push(hint);
  return undefined;
}

function slugName(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63);
}
