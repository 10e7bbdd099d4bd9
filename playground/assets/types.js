// @ts-check
/**
 * Shapes of the agent's HTTP API as the playground reads them (docs/guide/http-api.md). Type
 * declarations only: nothing here runs.
 * @module
 */

/**
 * One line of a session's NDJSON stream.
 * @typedef {object} SessionEvent
 * @property {string} type
 * @property {number} index
 * @property {string} sessionId
 * @property {string} [turnId]
 * @property {string} at
 * @property {Record<string, unknown>} data
 */

/**
 * An item of `GET /v1/sessions`.
 * @typedef {object} SessionSummary
 * @property {string} sessionId
 * @property {string} channel
 * @property {string} mode
 * @property {string | null} title
 * @property {string} status
 * @property {boolean} queued
 * @property {number} turnCount
 * @property {string} createdAt
 * @property {string} updatedAt
 * @property {string} continuationToken
 */

/**
 * `GET /v1/meta`: what the page shows before it authenticates.
 * @typedef {object} AgentMeta
 * @property {string} name
 * @property {string} slug
 * @property {boolean} dev
 * @property {string} basePath
 * @property {string} version
 */

/**
 * An eval case's result inside a run snapshot.
 * @typedef {object} EvalCaseResult
 * @property {string} id
 * @property {string} status
 * @property {number} durationMs
 * @property {string | null} sessionId
 * @property {Array<{assertion: string, message: string}>} failures
 */

/**
 * `GET /v1/dev/evals/runs/:runId`.
 * @typedef {object} EvalRunSnapshot
 * @property {string} runId
 * @property {string} status
 * @property {string} startedAt
 * @property {string} [finishedAt]
 * @property {number} total
 * @property {number} passed
 * @property {number} failed
 * @property {EvalCaseResult[]} cases
 * @property {Array<{message: string, at: string}>} errors
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
 * @property {Array<{id: string, routes: Array<{method: string, path: string, summary: string}>}>} channels
 * @property {Array<{id: string, cron?: unknown, nextFireAt?: string | null}>} schedules
 * @property {string[]} hooks
 * @property {{kinds: Array<{name: string, description: string}>, agentTool: boolean, max: number} | null} artifacts
 * @property {unknown[]} [abs]
 * @property {Array<{severity: string, code?: string, message: string}>} diagnostics
 */

/**
 * The `POST /v1/tools/:name` envelope.
 * @typedef {object} ToolCallOutcome
 * @property {true} ok
 * @property {string} toolName
 * @property {string} callId
 * @property {boolean} isError
 * @property {unknown} result
 * @property {number} durationMs
 */

/**
 * A line of `GET /v1/logs`.
 * @typedef {object} LogLine
 * @property {number} seq
 * @property {string} at
 * @property {string} level
 * @property {string} message
 */

export {};
