/**
 * The `needsApproval` gate of a server tool (docs/design/tools.md "Approvals"), for the paths that
 * decide on it.
 * @module
 */
import { HTTPError } from "../../base/errors.ts";
import type { ToolDefinition } from "../../base/definitions/tools.ts";

/** Whether a call with this (validated) input needs a human decision; a throwing predicate does. */
export async function needsApproval(definition: ToolDefinition, input: unknown): Promise<boolean> {
  const gate = definition.needsApproval;
  if (typeof gate !== "function") return gate === true;
  try {
    return Boolean(await gate(input));
  } catch {
    // Fail closed: a gate that cannot decide does not wave the call through.
    return true;
  }
}

/**
 * Direct calls have no turn to park in and no human in the loop, so a call the gate holds is
 * refused rather than run (docs/design/faults.md): 403 `approval_required`.
 */
export const approvalRequired = (toolName: string): HTTPError =>
  new HTTPError({
    status: 403,
    code: "approval_required",
    message: `${toolName} needs a human approval for this input, so it cannot be called directly; it runs when the model calls it in a session turn and the call is approved`,
    data: { toolName },
  });
