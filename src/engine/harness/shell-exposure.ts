/**
 * Whether an agent lets the model run `shell` commands unconfined: the local harness offers
 * `shell` (the default allowlist does) and `local.sandbox` is not on. Such commands run as the
 * serving user and can read anything that user can, so `serve` and `validate` warn, and `serve`
 * refuses to expose it beyond loopback unless told to (docs/design/faults.md).
 * @module
 */
import type { ProjectDefinition } from "../../base/definitions/project.ts";
import { resolveAllowlist } from "./allowlist.ts";

export const UNSANDBOXED_SHELL_CODE = "unsandboxed_shell";

export function hasUnsandboxedShell(project: Pick<ProjectDefinition, "agent">): boolean {
  const { agent } = project;
  if (agent.runtime === "cloud") return false;
  const tools: unknown = agent.tools;
  if (tools !== undefined && !Array.isArray(tools)) return false;
  if (!resolveAllowlist(tools as readonly unknown[] | undefined).allowed.has("shell")) return false;
  return agent.local?.sandbox !== true;
}

export const UNSANDBOXED_SHELL_MESSAGE =
  "shell is allowed without local.sandbox: the model's commands run as the serving user, unconfined, and can read files outside the workspace; set local: { sandbox: true } or leave shell out of tools";
