/**
 * Server tools (docs/design/tools.md "Tools"): typed actions the model calls, also callable over
 * HTTP.
 * @module
 */
import type { StandardSchema } from "../validate.ts";
import type { ArtifactsFacade } from "./artifacts.ts";
import type { DeliveryClaims } from "./channels.ts";
import type { AuthContext } from "../auth.ts";
import type { HostKv } from "./kv.ts";
import type { HostOtel } from "./telemetry.ts";
import type { RemindersFacade } from "./reminders.ts";
import type { SendOptions, SendResult } from "./sessions.ts";
import type { SessionSummary } from "./sessions.ts";
import type { JsonValue, ModelToolSpec } from "../ports/model.ts";

/** A JSON Schema object, passed to the model as is and never validated (docs/design/tools.md "Tools"). */
export type JsonSchemaObject = Record<string, unknown>;

export interface ToolDefinition<Input = unknown> {
  /** Written for the model. */
  description: string;
  /** A Standard Schema validator (validated and transformed before execution) or plain JSON Schema. */
  inputSchema?: StandardSchema<Input> | JsonSchemaObject;
  /** `server` runs in-process on the host; `agent` runs `script` where the agent runs. @default "server" */
  execution?: "server" | "agent";
  /** Shell script of an agent tool: JSON arguments on stdin, the result on stdout. */
  script?: string;
  /** Park the call for human approval (local runtime only). @default false */
  needsApproval?: boolean | Bivariant<[input: Input], boolean | Promise<boolean>>;
  /** The tool body of a server tool. */
  execute?(input: Input, context: ToolContext): unknown;
  /**
   * What calling the tool does to the world: `read` only looks, `write` changes something. Shown
   * in `/v1/info`; in eval sessions a `write` tool with a `dryRunResult` does not run, and
   * `t.notCalledTool({ effect: "write" })` checks that no write tool was called.
   */
  effect?: "read" | "write";
  /**
   * Running the body twice for one call does no harm. A call a crash cut short is recorded as
   * `outcome_unknown` and never run again on its own; the model is told it may call an idempotent
   * tool again, and to check first otherwise (docs/design/tools.md "Side effects and crashes").
   * @default false
   */
  idempotent?: boolean;
  /**
   * The result a dry run returns instead of running `execute` (a JSON value, or a function of the
   * validated input): eval sessions dry-run `effect: "write"` tools that declare one.
   */
  dryRunResult?: unknown;
  /**
   * The result's schema. A schema-validator object checks every result of `execute` (a result
   * that does not match is an error result); a JSON Schema object is shown in `/v1/info` only.
   */
  outputSchema?: StandardSchema | JsonSchemaObject;
}

/**
 * A function type checked like a method (bivariantly in its parameters), so a tool typed by its
 * schema stays assignable to `ToolDefinition` in `Record<string, ToolDefinition>`.
 */
type Bivariant<Args extends unknown[], Result> = { bivariant(...args: Args): Result }["bivariant"];

/** The read-only view of the session a tool runs in. */
export interface ToolSessionView {
  id: string;
  channel: string;
  mode: "chat" | "task";
  auth: AuthContext;
  purpose?: string;
  title?: string;
}

export interface ToolContext {
  /** Matches the `actions.requested` / `action.result` events; `tool_<name>_<id>` for direct calls. */
  toolCallId: string;
  /**
   * The session the call runs in. A direct call without `sessionId` gets a scratch session: a
   * fresh `scratch_…` id naming no stored session, the `http` channel (`schedule` for a
   * schedule's `callTool`), mode `task` and the caller's auth (docs/guide/http-api.md).
   */
  session: ToolSessionView;
  /** The session workspace, or the ephemeral scratch directory of a session-less direct call. */
  workspaceDir: string | undefined;
  stateRoot: string | undefined;
  /** Host services (docs/design/tools.md "Tools": execution context). */
  host: ToolHostServices;
  /** Starts or continues a session through a channel of this agent. */
  send(channelId: string, message: string, options?: SendOptions): Promise<SendResult>;
  /** A session of this agent, or null. */
  getSession(channelId: string, sessionId: string): Promise<SessionSummary | null>;
  /** Bound to the current session (fills sessionId and turnId). */
  artifacts: ArtifactsFacade;
  /** Aborted when the turn is stopped or preempted. */
  signal: AbortSignal;
}

/** The host services a tool may use; more join as the host grows them. */
export interface ToolHostServices {
  /** Reminders of this agent (`create` needs the conversation's channel id and continuation key). */
  reminders?: RemindersFacade;
  /** Once-only claims of webhook deliveries (the Slack and GitHub packs dedupe with them). */
  deliveries?: DeliveryClaims;
  /** The agent's durable JSON store: an unstorage `Storage` with `get / put / delete / list`. */
  kv: HostKv;
  /** OpenTelemetry: the host's tracer and meter, and `increment(name, value?, attributes?)`. */
  otel: HostOtel;
  /** Appends to files below the project root, where the runtime has a filesystem (the memory journal). */
  projectFiles?: ProjectFiles;
  [service: string]: unknown;
}

/** `{content, isError?}`: the envelope form of a tool result. */
export interface ToolResultEnvelope {
  content: Array<Record<string, unknown>>;
  isError?: boolean;
}

/** The host service the default backend writes through (the runtime port's project files). */
export interface ProjectFiles {
  /** Appends `text` to a project-relative file, creating it and its folders. */
  append(path: string, text: string): Promise<void>;
}

export interface ToolOutcome {
  /** What the event stream records as `action.result.output`. */
  output: JsonValue;
  isError: boolean;
}

/** An extra model-facing tool that is not an authored definition (e.g. `tag_artifact`). */
export interface BuiltinTool {
  spec: ModelToolSpec;
  /** `signal` aborts with the turn (stop, preempt, shutdown). */
  execute(input: unknown, scope: { sessionId: string; turnId: string; signal?: AbortSignal }): Promise<ToolOutcome>;
}
