/**
 * The handler behind `agent-serve playground --url`: the playground SPA at `/playground`, and
 * every `/v1/...` request forwarded to the running server's agent. The page and its API share
 * one origin, so no CORS is needed, and a `--bearer-token` is added here and never reaches the
 * browser. Because the proxy spends that token for whoever reaches it, it admits direct loopback
 * callers only, with the same DNS-rebinding check as `localDevStrict()`. It lives with the
 * adapters because it only moves bytes: the page from the host's own playground handler, every
 * API request to the upstream host.
 * @module
 */
import type { FetchHandler } from "./_serve.ts";
import { HTTPError, toErrorResponse } from "../src/base/errors.ts";
import { localDevStrict } from "../src/base/auth-policies.ts";
import { createPlaygroundHandler } from "../src/http/playground-site.ts";
import type { PlaygroundSite } from "../src/http/site-types.ts";

export interface PlaygroundProxyOptions {
  site: PlaygroundSite;
  /** The running agent's base URL (with the slug in multi mode), without a trailing slash. */
  upstream: string;
  bearerToken?: string;
}

export function createPlaygroundProxy(options: PlaygroundProxyOptions): FetchHandler {
  const playground = createPlaygroundHandler(options.site, "");
  const admit = localDevStrict();
  const handle = async (request: Request, ip: string | undefined): Promise<Response> => {
    if (!(await admit(request, { ip }))) throw new HTTPError({ status: 401, code: "unauthorized", message: "the playground proxy admits direct loopback callers only" });
    const url = new URL(request.url);
    if (url.pathname === "/") return Response.redirect(new URL("/playground", url), 302);
    if (url.pathname.startsWith("/v1/")) return forward(request, `${options.upstream}${url.pathname}${url.search}`, options.bearerToken);
    const page = request.method === "GET" || request.method === "HEAD" ? playground(url.pathname) : undefined;
    if (!page) throw new HTTPError({ status: 404, code: "not_found", message: "no such route" });
    return page;
  };
  return {
    fetch: (request, context) => handle(request, context?.ip).catch((error: unknown) => toErrorResponse(error)),
  };
}

// --- internals ---

/** Request headers the API reads; anything else (cookies, forwarding headers, Host) stays here. */
const FORWARDED_REQUEST_HEADERS = ["accept", "authorization", "content-type"];

/** Framing headers `fetch` already resolved (bodies arrive decoded), so they no longer describe the body. */
const DROPPED_RESPONSE_HEADERS = ["connection", "content-encoding", "content-length", "keep-alive", "transfer-encoding"];

async function forward(request: Request, target: string, bearerToken: string | undefined): Promise<Response> {
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (bearerToken) headers.set("authorization", `Bearer ${bearerToken}`);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  let upstream: Response;
  try {
    upstream = await fetch(target, {
      method: request.method,
      headers,
      body: hasBody ? await request.arrayBuffer() : undefined,
      // A browser closing a live event stream ends the upstream stream too.
      signal: request.signal,
      redirect: "manual",
    });
  } catch (error) {
    if (request.signal.aborted) throw error;
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new HTTPError({ status: 502, code: "upstream_unreachable", message: `cannot reach ${target}: ${cause}` });
  }
  const responseHeaders = new Headers(upstream.headers);
  for (const name of DROPPED_RESPONSE_HEADERS) responseHeaders.delete(name);
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: responseHeaders });
}
