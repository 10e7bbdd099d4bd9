/**
 * What both A2A HTTP+JSON bindings read from a request (docs/guide/a2a.md "HTTP+JSON" and
 * "0.3 clients"): the JSON body, the `<id>:<verb>` task segment, and the refusal of an unknown
 * operation. Each binding renders the refusals its own way.
 * @module
 */
import { readBodyText } from "../../base/body.ts";
import type { HostLogger } from "../../base/logging.ts";
import { A2AError } from "../../features/a2a/errors.ts";
import type { RouteContext } from "../route.ts";

/** The JSON body of a POST; a body that is not JSON is the binding's own 400 (`refuse`). */
export async function readRestBody(context: RouteContext, refuse: (error: unknown, logger: HostLogger) => Response): Promise<unknown> {
  const text = await readBodyText(context.request, context.host.maxBodyBytes);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return refuse(new A2AError("parseError", "the body is not valid JSON"), context.host.logger);
  }
}

/** `<id>` or `<id>:<verb>` of the task segment. */
export function taskParam(context: RouteContext): { id: string; verb?: string } {
  const segment = context.params["task"] ?? "";
  const colon = segment.lastIndexOf(":");
  return colon < 0 ? { id: segment } : { id: segment.slice(0, colon), verb: segment.slice(colon + 1) };
}

/** No operation of the binding (`A2A`, `A2A 0.3`) at this method and path. */
export const unknownOperation = (context: RouteContext, binding: string): A2AError =>
  new A2AError("methodNotFound", `no ${binding} operation at ${context.request.method} ${context.url.pathname}`);
