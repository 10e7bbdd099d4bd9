/**
 * Public types of the host factory.
 * @module
 */
import type { HostLogger, LogBuffer, LogLevel } from "../base/logging.ts";
import type { ModelOptions } from "../base/ports/model.ts";
import type { DocsSite, PlaygroundSite } from "../http/site-types.ts";
import type { AuthPolicy, ProtectedResource } from "../base/auth.ts";
import type { TokenVerifier } from "../base/auth-policies.ts";
import type { LanguageModelPort } from "../base/ports/model.ts";
import type { ProjectDefinition } from "../base/definitions/project.ts";
import type { RuntimePort } from "../base/ports/runtime.ts";
import type { PlacedCall, SessionPlacement } from "../base/definitions/placement.ts";
import type { SendOptions, SendResult } from "../base/definitions/sessions.ts";
import type { StorageDriver } from "../base/storage/types.ts";
import type { SlotFiring } from "../features/schedules/runner.ts";
import type { TimerPort } from "../base/ports/timers.ts";

/** One agent project mounted on the host. */
export interface AgentMount {
  /** URL slug in multi mode (`/<slug>/v1/...`). Ignored in single mode. */
  slug: string;
  project: ProjectDefinition;
  /** Where this agent's sessions and streams live. @default an in-memory driver */
  storage?: StorageDriver;
  /** Workspaces and script execution for tools. @default none: tools get no workspace directory */
  runtime?: RuntimePort;
}

export interface AgentHostOptions {
  agents: AgentMount[];
  /** Route layout (docs/guide/http-api.md "Route layout"). @default "multi" */
  mode?: "multi" | "single";
  /**
   * Development mode: session lists and reads widen for loopback callers, dev routes exist.
   * @default false
   */
  dev?: boolean;
  /**
   * Replaces the default auth chain (`[localDevStrict()]`) of the built-in HTTP channel.
   * `bearerToken` and `allowAnonymous` mirror `--bearer-token` and `--allow-anonymous`.
   * Security: the default admits direct loopback callers only.
   */
  auth?: {
    bearerToken?: string;
    allowAnonymous?: boolean;
    policies?: AuthPolicy[];
    /**
     * Bearer tokens from an OAuth authorization server: `verifier` decides each token's principal
     * (it must check the token's audience is this server), and the MCP endpoints publish
     * protected-resource metadata naming `authorizationServers`, so MCP clients discover how to
     * get a token (docs/guide/mcp.md "Authorization"). Security: the verifier is the whole check.
     */
    oauth?: ProtectedResource & { verifier: TokenVerifier };
  };
  models?: ModelOptions;
  /** Request bodies larger than this get 413 `payload_too_large`. @default 1 MiB */
  maxBodyBytes?: number;
  /**
   * The playground SPA at `<base>/playground` and the host's two index routes, `GET /` and
   * `GET /v1/agents` (multi mode). Pass the site's files (the Node loader's `readPlaygroundSite()`
   * reads the package's own); `true` keeps only the index routes, since the core reads no files.
   * `--no-playground` sets false and removes all of it. Public: the files need no auth; the API
   * calls the page makes run the agent's chain. @default true
   */
  playground?: boolean | PlaygroundSite;
  /**
   * The static documentation site under `/docs`, already rendered (the Node loader's
   * `renderDocsSite()` builds it from Markdown). `false` or absent: no site, `/docs` is 404.
   * Public: the pages need no auth. @default no site
   */
  docs?: false | DocsSite;
  /** @default console-backed logger */
  logger?: HostLogger;
  /**
   * Lines below this level are dropped, from the sink and from `GET /v1/logs` alike. Requests,
   * turns, tool calls and timed work log at `info`; polls and static files at `debug`.
   * @default "info"
   */
  logLevel?: LogLevel;
  /**
   * Recover turns interrupted by a crash before serving (docs/design/foundation.md "Guarantees").
   * On a store shared by processes (Redis) only turns whose lease expired are recovered, now and
   * every `leaseTtlMs`. On a process-local store (sqlite) start-up recovery closes every open
   * turn: turn it off for short-lived helper hosts that share a state root with a running server
   * (docs/design/processes.md "Recovery by lease"). @default true
   */
  recoverOnStart?: boolean;
  /**
   * When live streams (`GET .../stream`, SSE, `/v1/chat`, MCP `ask`) end. A caller that creates
   * hosts in turn over the same stores passes its own, so open streams outlive one host: the `dev`
   * loop does on reload (docs/design/dev-reload.md). @default this host's `close()`
   */
  closing?: ClosingSignal;
  /**
   * How long a session's turn lease outlives a process that stopped renewing it (renewed every
   * third of it). On a store shared by several processes it bounds how soon a crashed process's
   * turns end with `turn.failed {message: "host restarted"}`, and the recovery sweep runs this
   * often (docs/design/processes.md). @default 30000
   */
  leaseTtlMs?: number;
  /**
   * The cloud runtime (docs/guide/cloud-runtime.md): the runners that run the turns of
   * `runtime: "cloud"` agents and of sessions sent with a per-send `cloud`, and how those runners
   * reach this host's server tools. Without it such turns fail with a message saying so.
   */
  cloud?: CloudRuntimeOptions;
  /** Extra time given to in-flight turns on `close()` before they are interrupted. @default 10000 */
  drainTimeoutMs?: number;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
  /**
   * The cron runner (`--no-schedules` sets false): when false, schedules do not fire from the
   * clock or `tick()` outside dev mode. The dev and internal fire routes still dispatch them.
   * @default true
   */
  schedules?: boolean;
  /**
   * The bundled schedule and reminder clock (`--no-control-plane` sets false). When false there is
   * no clock and `POST /v1/internal/{schedules,reminders}/:id/fire` are mounted, admitting only
   * requests with the `x-agent-serve-timed-work` header. Security: only run this behind a proxy
   * that strips that header from external traffic.
   * @default true
   */
  controlPlane?: boolean;
  /**
   * Replaces the built-in clock (outside dev mode): receives every due time of every schedule and
   * reminder as `arm("<slug>/schedules/<id>" | "<slug>/reminders/<id>", at)` and must wake the
   * host then, by calling `host.tick()` or the internal fire route the key names.
   * @default the built-in clock (a single unref'd setTimeout)
   */
  timers?: TimerPort;
  /**
   * Sessions live in hosts of their own (the Workers adapter: one Durable Object per session,
   * docs/design/cloudflare.md "Where turns run"): this host runs turns only for the session the
   * placement names, and sends what would change any other session to the host it lives in.
   * Recovery, channel delivery and evals follow suit; the placement also names new sessions.
   * @default every session lives here
   */
  placement?: SessionPlacement;
  /** Custom channels. */
  channels?: {
    /**
     * Delays between attempts of a throwing `events` handler, and of a failed A2A push
     * notification (tests shorten them). @default [1000, 2000, 4000, 8000, 16000]
     */
    retryDelaysMs?: number[];
  };
}

/** Tells its listeners once that live streams must end. */
export interface ClosingSignal {
  subscribe(listener: () => void): () => void;
}

/** Runtime context the adapter attaches to a request (srvx's `ServerRequest` fields). */
/**
 * What the runtime tells the host about one request; the adapters fill it from srvx's request on
 * every runtime (`docs/guide/embedding.md`).
 */
export interface RequestContext {
  /** TCP peer address. Absent for in-process requests, which therefore are not loopback. */
  ip?: string;
  /** Keeps the runtime alive until `promise` settles, where the runtime offers that. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** The platform's bindings for this request (Workers `env`); absent on Node, Bun and Deno. */
  env?: Record<string, unknown>;
}

export interface AgentHost {
  /** The whole HTTP surface. */
  fetch(request: Request, context?: RequestContext): Promise<Response>;
  /**
   * Test helper: builds a Request for `path` on `http://127.0.0.1` and calls `fetch` as a direct
   * loopback peer unless `context.ip` says otherwise.
   */
  request(path: string, init?: RequestInit, context?: RequestContext): Promise<Response>;
  /** Recovers turns interrupted by a crash. `fetch` awaits this on first use. */
  ready(): Promise<void>;
  /**
   * Drains in-flight turns (up to `drainTimeoutMs`), ends live streams (unless `options.closing`
   * owns them) and closes storage.
   */
  close(): Promise<void>;
  /** Admissions and turns of every agent not yet settled, less those parked for approval (closing suspends them). */
  runningTurns(): number;
  /**
   * Answers what another host sent for a session that lives here (`placement`): the adapter's
   * receiving end (docs/design/cloudflare.md "Where turns run").
   */
  runPlaced(slug: string, sessionId: string, call: PlacedCall): Promise<unknown>;
  /**
   * Channel-level send (docs/guide/agent-projects.md "Sending into sessions" send options): starts
   * or continues a session of the agent
   * `slug` (optional when one agent is mounted) through `channel` (default the HTTP channel).
   */
  send(message: string, options?: SendOptions & { slug?: string; channel?: string }): Promise<SendResult>;
  /**
   * Fires the schedules and reminders due at `now` (default: the host's clock) for every agent and
   * resolves with what fired. The built-in clock calls this; Workers-style platforms call it from
   * their scheduled event. Nothing fires twice: state lives in storage.
   */
  tick(now?: number): Promise<TickReport[]>;
  /** Resolved model per agent slug, for start-up notices. */
  describeModels(): Array<{ slug: string; model: string; notice?: string }>;
  readonly logs: LogBuffer;
}

/** What one `tick` fired for one agent. */
export interface TickReport {
  slug: string;
  schedules: SlotFiring[];
  /** Ids of the reminders that fired. */
  reminders: string[];
}

export type { LanguageModelPort, SendOptions, SendResult };

/** How this host reaches its cloud runners (docs/design/cloud-runtime.md). */
export interface CloudRuntimeOptions {
  /** Runner base URLs (`--runner`, `AGENT_SERVE_RUNNERS`). */
  runners: string[];
  /** The secret shared with the runners (`--runner-secret`, `AGENT_SERVE_RUNNER_SECRET`). Security: keep it out of logs. */
  secret: string;
  /** `--public-url`: where runners reach this host; the tools endpoint is under each agent's base path. */
  publicUrl?: string;
  /** `--cloud-tools-url`: the tools endpoint as is (wins over `publicUrl`). */
  toolsUrl?: string;
  /** No line from a runner for this long fails its turn. @default 10000 */
  leaseMs?: number;
}
