// @ts-check
/**
 * Composer slash commands: each custom channel route without path parameters is a command named
 * after its last path segment (`POST /v1/channels/review/drive` is `/drive`), plus `/help`.
 * Typing `/` suggests them (Tab completes); a command sends the route its argument (a JSON object,
 * or the text as the one string field of the route's schema) and shows the answer. Any other
 * line starting with `/` is a message for the model, as before.
 * @module
 */
import { callRoute, customRoutes } from "./channel-routes.js";
import { h } from "./dom.js";

/** @typedef {import("./channel-routes.js").CustomRoute} CustomRoute */
/** @typedef {{name: string, route: CustomRoute}} Command */

/**
 * @param {object} deps
 * @param {import("./api.js").Api} deps.api
 * @param {(sessionId: string) => void} deps.openSession
 */
export function createSlashCommands({ api, openSession }) {
  const suggestions = h("ul", { className: "slash-suggestions plain", hidden: true, attrs: { role: "listbox", "aria-label": "Slash commands" } });
  const output = h("div", { className: "command-output", hidden: true, attrs: { role: "status", "aria-label": "Command result" } });
  /** @type {Command[]} */
  let commands = [];
  /** @type {Promise<void> | undefined} */
  let loading;

  function load() {
    loading ??= api
      .get("/v1/info")
      .then((info) => {
        commands = toCommands(customRoutes(/** @type {import("./types.js").ProjectInfo} */ (info), api.base));
      })
      .catch(() => {
        loading = undefined;
      });
    return loading;
  }

  /** Shows the commands matching a `/` prefix being typed. @param {string} text */
  function suggest(text) {
    const matching = matches(text);
    suggestions.replaceChildren(
      ...matching.map(({ name, description }) => h("li", { attrs: { role: "option" } }, h("code", { text: `/${name}` }), h("span", { className: "muted", text: ` ${description}` }))),
    );
    suggestions.hidden = matching.length === 0;
  }

  /** @param {string} text */
  function matches(text) {
    if (!text.startsWith("/") || /\s/.test(text)) return [];
    const all = [{ name: "help", description: "list the commands" }, ...commands.map(({ name, route }) => ({ name, description: describe(route) }))];
    return all.filter(({ name }) => `/${name}`.startsWith(text));
  }

  /**
   * Completes the typed prefix to the first matching command; false when nothing matches.
   * @param {HTMLTextAreaElement} input
   */
  function complete(input) {
    const [first] = matches(input.value);
    if (!first) return false;
    input.value = `/${first.name} `;
    suggestions.hidden = true;
    return true;
  }

  /**
   * Runs `text` when it names a command; resolves false when it is a message for the model.
   * @param {string} text
   */
  async function run(text) {
    await load();
    const [head = "", ...rest] = text.trim().split(/\s+/);
    const argument = text.trim().slice(head.length).trim();
    suggestions.hidden = true;
    if (head === "/help") {
      show("Commands", commands.length ? commands.map(({ name, route }) => `/${name} ${usage(route)}  ${describe(route)}`).join("\n") : "No channel routes to call. Other lines starting with / go to the model.");
      return true;
    }
    const command = commands.find(({ name }) => `/${name}` === head);
    if (!command || rest === undefined) return false;
    const { route } = command;
    const value = argumentValue(route, argument);
    if (typeof value === "string") {
      show(`/${command.name}`, value, true);
      return true;
    }
    const answer = await callRoute(api, route, route.method === "GET" ? { query: value } : { body: value });
    show(`${route.method} ${route.path} → ${answer.status}`, pretty(answer.text) || "(empty body)", answer.status >= 400);
    const sessionId = sessionIdIn(answer.text);
    if (answer.status < 400 && sessionId) openSession(sessionId);
    return true;
  }

  /**
   * @param {string} title
   * @param {string} text
   * @param {boolean} [failed]
   */
  function show(title, text, failed = false) {
    output.replaceChildren(h("strong", { text: title }), h("pre", { className: failed ? "failed" : "", text }));
    output.hidden = false;
  }

  return { suggestions, output, load, suggest, complete, run };
}

// --- internals ---

/**
 * Routes without path parameters, named by their last path segment (the channel id for a route
 * at the channel's root); a name two routes share gets the channel id in front. Ingress routes of
 * chat-platform and source-control channels (`/events`, `/webhook`) are left out.
 * @param {CustomRoute[]} routes
 * @returns {Command[]}
 */
function toCommands(routes) {
  const usable = routes.filter((route) => !route.relativePath.includes("/:") && !/\/(events|webhook)$/.test(route.relativePath));
  const named = usable.map((route) => {
    const tail = route.relativePath.slice(`/v1/channels/${route.channel}`.length).split("/").filter(Boolean).at(-1);
    return { name: (tail ?? route.channel).replace(/[^A-Za-z0-9_.-]/g, "-"), route };
  });
  return named.map(({ name, route }) => ({ name: named.filter((other) => other.name === name).length > 1 ? `${route.channel}-${name}` : name, route }));
}

/** @param {CustomRoute} route */
function describe(route) {
  return route.description || `${route.method} ${route.path}`;
}

/** `<text>` when the route takes one string field, else `<json>`. @param {CustomRoute} route */
function usage(route) {
  return soleStringField(route) ? `<${soleStringField(route)}>` : "<json>";
}

/**
 * The body (or query) to send, or a message saying why the argument does not fit.
 * @param {CustomRoute} route
 * @param {string} argument
 * @returns {Record<string, unknown> | string}
 */
function argumentValue(route, argument) {
  if (argument === "") return {};
  if (argument.startsWith("{")) {
    try {
      const parsed = JSON.parse(argument);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed;
    } catch {
      return "The argument is not valid JSON.";
    }
  }
  const field = soleStringField(route);
  return field ? { [field]: argument } : `Usage: ${usage(route)} (a JSON object for ${route.method} ${route.path})`;
}

/** The one required string property of the route's schema (or its only string property). @param {CustomRoute} route */
function soleStringField(route) {
  const schema = route.method === "GET" ? route.querySchema : route.bodySchema;
  const properties = schema && typeof schema["properties"] === "object" && schema["properties"] !== null ? /** @type {Record<string, {type?: unknown}>} */ (schema["properties"]) : {};
  const strings = Object.entries(properties).filter(([, property]) => property.type === "string").map(([name]) => name);
  const required = Array.isArray(schema?.["required"]) ? /** @type {unknown[]} */ (schema["required"]) : [];
  const requiredStrings = strings.filter((name) => required.includes(name));
  if (requiredStrings.length === 1) return requiredStrings[0];
  return strings.length === 1 ? strings[0] : undefined;
}

/** @param {string} text */
function sessionIdIn(text) {
  try {
    const value = JSON.parse(text);
    return typeof value?.sessionId === "string" && value.sessionId.startsWith("ses_") ? value.sessionId : undefined;
  } catch {
    return undefined;
  }
}

/** @param {string} text */
function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
