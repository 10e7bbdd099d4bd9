/**
 * Ends a live stream when its client goes away. workerd does not cancel the body a worker passes
 * through from a Durable Object when the client leaves, so the object's stream would go on
 * following the session and writing into a request that is over. With the compatibility flag
 * `enable_request_signal` the worker's request signal aborts instead; the worker pipes live
 * bodies itself and turns that abort into a cancel of the object's body, which reaches the core's
 * stream and ends its follow (docs/design/cloudflare.md "Live streams").
 * @module
 */
const LIVE_TYPES = /^(application\/x-ndjson|text\/event-stream)/;

export function endWhenClientLeaves(request: Request, response: Response): Response {
  const body = response.body;
  if (!body || !LIVE_TYPES.test(response.headers.get("content-type") ?? "")) return response;
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  body.pipeTo(writable, { signal: request.signal }).catch(() => {});
  return new Response(readable, { status: response.status, statusText: response.statusText, headers: response.headers });
}
