// @ts-check
/**
 * The Agent tab: what `GET /v1/info` says the agent is made of (model, tools with their input
 * schemas and a Try form, skills, subagents, MCP connections, channels and routes, hooks,
 * schedules, artifact kinds, diagnostics).
 * @module
 */
import { customRoutes } from "./channel-routes.js";
import { createChannelTry } from "./channel-try.js";
import { errorLine, formatTime, h, jsonText } from "./dom.js";
import { createToolTry } from "./tool-try.js";

/** @typedef {import("./types.js").ProjectInfo} ProjectInfo */
/** @typedef {import("./types.js").ToolInfo} ToolInfo */

/**
 * @param {object} deps
 * @param {HTMLElement} deps.panel
 * @param {import("./api.js").Api} deps.api
 */
export function createAgentView({ panel, api }) {
  const problem = errorLine();
  const body = h("div", { className: "agent-info" });
  const refresh = h("button", { text: "Refresh", attrs: { type: "button" }, on: { click: () => void load() } });
  panel.append(h("div", { className: "toolbar" }, h("h2", { text: "Agent" }), h("span", { className: "spacer" }), refresh), problem.element, body);
  let loaded = false;
  /** Whether the server runs with --dev: schedules then never fire alone, and can be run by hand. */
  let dev = false;

  async function load() {
    problem.clear();
    try {
      const [info, meta] = await Promise.all([api.get("/v1/info"), api.get("/v1/meta")]);
      dev = /** @type {{dev?: boolean}} */ (meta).dev === true;
      render(/** @type {ProjectInfo} */ (info));
      loaded = true;
    } catch (error) {
      problem.show(error);
    }
  }

  /** @param {ProjectInfo} info */
  function render(info) {
    const routes = info.channels.filter((channel) => channel.id === "http").flatMap((channel) => channel.routes);
    const custom = customRoutes(info, api.base);
    body.replaceChildren(
      section(
        "Overview",
        h(
          "dl",
          { className: "facts" },
          ...fact("Name", info.name),
          ...fact("Slug", info.slug),
          ...(info.description ? fact("Description", info.description) : []),
          ...fact("Model", info.model.id),
          ...(info.model.notice ? fact("Model notice", info.model.notice) : []),
          ...(Object.keys(info.model.params).length > 0 ? fact("Model params", jsonText(info.model.params)) : []),
          ...(info.harness ? fact("Harness", `${info.harness.runtime}${info.harness.sandbox ? ", sandboxed" : ""}: ${info.harness.tools.join(", ") || "no built-in tools"}`) : []),
        ),
      ),
      section(`Tools (${info.tools.length})`, info.tools.length ? h("div", { className: "cards" }, ...info.tools.map(toolEntry)) : none()),
      namedSection("Skills", info.skills),
      namedSection("Subagents", info.subagents),
      namedSection("MCP connections", info.mcpConnections),
      section(
        `Channels (${info.channels.length})`,
        custom.length ? h("div", { className: "cards" }, ...custom.map(channelRouteEntry)) : none("No custom channels (bot/channels/)."),
        h(
          "details",
          {},
          h("summary", { text: `Built-in HTTP channel (${routes.length} routes)` }),
          h("ul", { className: "plain" }, ...routes.map((route) => h("li", {}, h("code", { text: `${route.method} ${route.path}` }), h("span", { className: "muted", text: ` ${route.summary ?? ""}` })))),
        ),
      ),
      section(`Hooks (${info.hooks.length})`, info.hooks.length ? h("ul", { className: "plain" }, ...info.hooks.map((name) => h("li", {}, h("code", { text: name })))) : none()),
      section(`Schedules (${info.schedules.length})`, info.schedules.length ? h("ul", { className: "plain" }, ...info.schedules.map(scheduleEntry)) : none()),
      section(
        "Artifacts",
        info.artifacts
          ? h(
              "ul",
              { className: "plain" },
              ...info.artifacts.kinds.map((kind) => h("li", {}, h("code", { text: kind.name }), h("span", { className: "muted", text: ` ${kind.description}` }))),
              h("li", { className: "muted", text: `keeps at most ${info.artifacts.max}; model tool ${info.artifacts.agentTool ? "on" : "off"}` }),
            )
          : none(),
      ),
      section(
        `Diagnostics (${info.diagnostics.length})`,
        info.diagnostics.length
          ? h("ul", { className: "plain" }, ...info.diagnostics.map((item) => h("li", { className: `diagnostic ${item.severity}`, text: `${item.severity}${item.code ? ` ${item.code}` : ""}: ${item.message}` })))
          : none("No problems found."),
      ),
    );
  }

  /** @param {import("./channel-routes.js").CustomRoute} route */
  function channelRouteEntry(route) {
    const schemas = [
      route.querySchema ? h("details", {}, h("summary", { text: "Query schema" }), h("pre", { text: jsonText(route.querySchema) })) : null,
      route.bodySchema ? h("details", {}, h("summary", { text: "Body schema" }), h("pre", { text: jsonText(route.bodySchema) })) : null,
    ];
    return h(
      "article",
      { className: "card", attrs: { "aria-label": `Route ${route.method} ${route.path}` } },
      h("header", { className: "row" }, h("span", { className: "badge", text: route.channel }), h("code", { className: "tool-name", text: `${route.method} ${route.path}` })),
      route.description ? h("p", { className: "pre-wrap", text: route.description }) : null,
      ...schemas,
      h("details", { className: "try" }, h("summary", { text: "Try" }), createChannelTry(api, route)),
    );
  }

  /**
   * A schedule: its cron, when it next fires (under --dev: would fire; nothing fires alone there),
   * and under --dev a Run now button (`POST /v1/dev/schedules/:id`).
   * @param {{id: string, cron?: unknown, nextFireAt?: string | null}} schedule
   */
  function scheduleEntry(schedule) {
    const next = schedule.nextFireAt ? formatTime(schedule.nextFireAt) : "never";
    const outcome = h("span", { className: "muted", attrs: { role: "status" } });
    const run = async () => {
      outcome.textContent = "running…";
      try {
        /** @type {{sessionIds: string[], error?: string}} */
        const fired = await api.post(`/v1/dev/schedules/${encodeURIComponent(schedule.id)}`, {});
        outcome.textContent = fired.error ? `failed: ${fired.error}` : `started ${fired.sessionIds.length} session${fired.sessionIds.length === 1 ? "" : "s"}: ${fired.sessionIds.join(", ")}`;
      } catch (error) {
        outcome.textContent = error instanceof Error ? error.message : String(error);
      }
    };
    return h(
      "li",
      { attrs: { "aria-label": `Schedule ${schedule.id}` } },
      h("code", { text: schedule.id }),
      h("span", { className: "muted", text: ` ${String(schedule.cron ?? "")} · ${dev ? "would fire" : "next"} ${next}` }),
      dev ? h("button", { text: "Run now", attrs: { type: "button" }, on: { click: () => void run() } }) : null,
      outcome,
    );
  }

  /** @param {ToolInfo} tool */
  function toolEntry(tool) {
    const approval = tool.needsApproval === "predicate" ? "approval: sometimes" : tool.needsApproval ? "approval: always" : "";
    return h(
      "article",
      { className: "card", attrs: { "aria-label": `Tool ${tool.name}` } },
      h("header", { className: "row" }, h("code", { className: "tool-name", text: tool.name }), h("span", { className: "badge", text: tool.execution }), approval ? h("span", { className: "badge pending", text: approval }) : null),
      h("p", { className: "pre-wrap", text: tool.description }),
      h("details", {}, h("summary", { text: "Input schema" }), h("pre", { text: jsonText(tool.inputSchema) })),
      tool.execution === "server" ? h("details", { className: "try" }, h("summary", { text: "Try" }), createToolTry(api, tool.name)) : h("p", { className: "muted", text: "Agent tools run in a model turn only." }),
    );
  }

  return {
    show() {
      if (!loaded) void load();
    },
  };
}

// --- internals ---

/**
 * @param {string} title
 * @param {...HTMLElement} content
 */
function section(title, ...content) {
  return h("section", { className: "info-section", attrs: { "aria-label": title } }, h("h3", { text: title }), ...content);
}

/**
 * A list of `{name|id, description?, ...}` records: the name, the description, the rest as JSON.
 * @param {string} title
 * @param {unknown[]} items
 */
function namedSection(title, items) {
  return section(
    `${title} (${items.length})`,
    items.length
      ? h(
          "ul",
          { className: "plain" },
          ...items.map((item) => {
            const fields = typeof item === "object" && item !== null ? /** @type {Record<string, unknown>} */ ({ ...item }) : { value: item };
            const name = String(fields["name"] ?? fields["id"] ?? "");
            const description = typeof fields["description"] === "string" ? fields["description"] : "";
            delete fields["name"];
            delete fields["id"];
            delete fields["description"];
            const rest = Object.keys(fields).length > 0 ? jsonText(fields) : "";
            return h("li", {}, h("code", { text: name }), description ? h("span", { className: "muted", text: ` ${description}` }) : null, rest ? h("pre", { text: rest }) : null);
          }),
        )
      : none(),
  );
}

/**
 * @param {string} term
 * @param {string} value
 * @returns {HTMLElement[]}
 */
function fact(term, value) {
  return [h("dt", { text: term }), h("dd", { className: "pre-wrap", text: value })];
}

function none(text = "None.") {
  return h("p", { className: "muted", text });
}
