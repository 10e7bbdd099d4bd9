/**
 * How one object's host reaches the host of a session living in another object
 * (docs/design/cloudflare.md "Where turns run"): a `POST` to the session's object marked with
 * `x-agent-serve-placed: <slug>`, carrying the call as JSON, answered with `{value}` or the
 * host's error envelope, which becomes the same `HTTPError` on the caller's side.
 * @module
 */
import { HTTPError, toErrorResponse } from "../../src/base/errors.ts";
import type { PlacedCall } from "../../src/base/definitions/placement.ts";
import type { AgentHost } from "../../src/host/types.ts";
import type { CloudflareEnv } from "./platform.ts";

/** Marks a placed call; its value is the agent's slug. The worker strips it from outside traffic. */
export const PLACED_HEADER = "x-agent-serve-placed";

/** Sends `call` to the object of session `sessionId` and resolves with its host's answer. */
export async function sendPlaced(env: CloudflareEnv, slug: string, sessionId: string, call: PlacedCall): Promise<unknown> {
  const stub = env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(sessionId));
  const response = await stub.fetch(
    new Request(`https://session.agent-serve.internal/${sessionId}/placed`, {
      method: "POST",
      headers: { [PLACED_HEADER]: slug, "content-type": "application/json" },
      body: JSON.stringify(call),
    }),
  );
  const body = (await response.json().catch(() => undefined)) as { value?: unknown; error?: string; message?: string } | undefined;
  if (response.ok && body) return body.value;
  const { error, message, ok: _ok, ...data } = (body ?? {}) as { error?: string; message?: string; ok?: boolean };
  throw new HTTPError({
    status: response.status,
    code: error ?? "placed_call_failed",
    message: message ?? `the session's object answered ${response.status}`,
    ...(Object.keys(data).length === 0 ? {} : { data }),
  });
}

/** The receiving end: runs the call in this object's host. */
export async function answerPlaced(host: AgentHost, sessionId: string, request: Request): Promise<Response> {
  try {
    const slug = request.headers.get(PLACED_HEADER) ?? "";
    const value = await host.runPlaced(slug, sessionId, (await request.json()) as PlacedCall);
    return Response.json({ value: value ?? null });
  } catch (error) {
    return toErrorResponse(error);
  }
}
