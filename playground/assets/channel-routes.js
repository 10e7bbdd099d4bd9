// @ts-check
/**
 * Custom channel routes as `GET /v1/info` lists them: calling one from the page (the Agent tab's
 * Try forms and the composer's slash commands) and the equivalent curl command.
 * @module
 */
import { ApiError } from "./api.js";

/** @typedef {import("./types.js").ProjectInfo} ProjectInfo */
/** @typedef {import("./types.js").ChannelRouteInfo} ChannelRouteInfo */

/**
 * A custom route with its channel and its path below the page's base path.
 * @typedef {ChannelRouteInfo & {channel: string, relativePath: string}} CustomRoute
 */

/**
 * Routes of the custom channels (every channel but the built-in `http` one).
 * @param {ProjectInfo} info
 * @param {string} base
 * @returns {CustomRoute[]}
 */
export function customRoutes(info, base) {
  return info.channels
    .filter((channel) => channel.id !== "http")
    .flatMap((channel) =>
      channel.routes.map((route) => ({ ...route, channel: channel.id, relativePath: route.path.startsWith(base) ? route.path.slice(base.length) : route.path })),
    );
}

/**
 * Sends one request to a channel route. Resolves with the status and body text, also for 4xx
 * answers (they are what a Try form shows); only a network failure rejects.
 * @param {import("./api.js").Api} api
 * @param {CustomRoute} route
 * @param {{path?: string, query?: Record<string, unknown>, body?: unknown}} request
 * @returns {Promise<{status: number, text: string}>}
 */
export async function callRoute(api, route, request) {
  const target = `${request.path ?? route.relativePath}${queryString(request.query)}`;
  /** @type {RequestInit} */
  const init = { method: route.method };
  if (route.method !== "GET" && request.body !== undefined) {
    init.headers = { "content-type": "application/json" };
    init.body = JSON.stringify(request.body);
  }
  try {
    const response = await api.request(target, init);
    return { status: response.status, text: await response.text() };
  } catch (error) {
    if (error instanceof ApiError && error.status !== 0) return { status: error.status, text: JSON.stringify({ ok: false, error: error.code, message: error.message }) };
    throw error;
  }
}

/**
 * The curl command of the same request, for a terminal.
 * @param {string} origin
 * @param {string} base
 * @param {CustomRoute} route
 * @param {{path?: string, query?: Record<string, unknown>, body?: unknown}} request
 */
export function curlCommand(origin, base, route, request) {
  const url = `${origin}${base}${request.path ?? route.relativePath}${queryString(request.query)}`;
  const parts = ["curl", "-X", route.method, quote(url)];
  if (route.method !== "GET" && request.body !== undefined) parts.push("-H", quote("content-type: application/json"), "-d", quote(JSON.stringify(request.body)));
  return parts.join(" ");
}

// --- internals ---

/** @param {Record<string, unknown> | undefined} query */
function queryString(query) {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined && item !== null) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A POSIX shell single-quoted word. @param {string} text */
function quote(text) {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
