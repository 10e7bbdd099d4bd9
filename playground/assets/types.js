// @ts-check
/**
 * Shapes of the agent's HTTP API as the playground reads them (docs/guide/http-api.md), from the
 * package's public `agent-serve/events` entry where it declares them, as any client would import
 * them (playground/tsconfig.json resolves the package to its own sources in a checkout). Type
 * declarations only: nothing here runs.
 * @module
 */

/**
 * One line of a session's NDJSON stream; `isEvent` narrows it to a type's payload.
 * @typedef {import("agent-serve/events").EventEnvelope} SessionEvent
 */

/**
 * An item of `GET /v1/sessions`.
 * @typedef {import("agent-serve/events").SessionSummary} SessionSummary
 */

/**
 * `GET /v1/meta`: what the page shows before it authenticates.
 * @typedef {import("agent-serve/events").AgentMeta} AgentMeta
 */

/**
 * An eval case's result inside a run snapshot.
 * @typedef {import("agent-serve/events").EvalCaseResult} EvalCaseResult
 */

/**
 * `GET /v1/dev/evals/runs/:runId`.
 * @typedef {import("agent-serve/events").EvalRunSnapshot} EvalRunSnapshot
 */

/**
 * An item of `GET /v1/dev/evals`.
 * @typedef {object} EvalListing
 * @property {string} id
 * @property {string[]} tags
 * @property {string | null} description
 */

/**
 * A tool as `GET /v1/info` describes it.
 * @typedef {object} ToolInfo
 * @property {string} name
 * @property {string} description
 * @property {"server" | "agent"} execution
 * @property {boolean | "predicate"} needsApproval
 * @property {unknown} inputSchema
 */

/**
 * `GET /v1/info`; members the page does not read stay `unknown`.
 * @typedef {object} ProjectInfo
 * @property {string} name
 * @property {string} slug
 * @property {string | null} description
 * @property {{id: string, params: Record<string, string>, notice?: string}} model
 * @property {ToolInfo[]} tools
 * @property {unknown[]} skills
 * @property {unknown[]} subagents
 * @property {unknown[]} mcpConnections
 * @property {{runtime: string, tools: string[], sandbox: boolean}} [harness]
 * @property {Array<{id: string, routes: ChannelRouteInfo[], events?: string[], auth?: string}>} channels
 * @property {Array<{id: string, cron?: unknown, nextFireAt?: string | null}>} schedules
 * @property {string[]} hooks
 * @property {{kinds: Array<{name: string, description: string}>, agentTool: boolean, max: number} | null} artifacts
 * @property {unknown[]} [abs]
 * @property {Array<{severity: string, code?: string, message: string}>} diagnostics
 */

/**
 * A route of a channel in `GET /v1/info`: the built-in HTTP channel's carry `summary`, custom
 * channels' `description` and their schemas as JSON Schema.
 * @typedef {object} ChannelRouteInfo
 * @property {string} method
 * @property {string} path
 * @property {string} [summary]
 * @property {string} [description]
 * @property {Record<string, unknown>} [bodySchema]
 * @property {Record<string, unknown>} [querySchema]
 */

/**
 * The `POST /v1/tools/:name` envelope.
 * @typedef {import("agent-serve/events").DirectCallOutcome} ToolCallOutcome
 */

/**
 * A line of `GET /v1/logs`.
 * @typedef {import("agent-serve/events").LogLine} LogLine
 */

export {};
