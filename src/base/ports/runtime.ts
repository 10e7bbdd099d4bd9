/**
 * The runtime port: where tools and the harness run. The core never touches a filesystem; the
 * Node adapter supplies workspaces, scratch directories, script execution, the harness tools
 * (`shell read edit grep glob ls`) and MCP client connections.
 * @module
 */
import type { JsonValue } from "./model.ts";

export interface ScriptResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** True when the run was cut short by the timeout or the abort signal. */
  killed: boolean;
}

export interface ScriptOptions {
  cwd: string;
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * Run inside the runtime's sandbox (`local.sandbox`). A runtime without a working sandbox
   * throws rather than running the script unsandboxed. @default false
   */
  sandbox?: boolean;
}

/**
 * Where a session's workspace lives (docs/guide/agent-projects.md "Agent configuration", local
 * options): a per-send directory wins over `local.workspaceDir`, which wins over `local.cwd`; none
 * of them means the runtime's default place.
 */
export interface WorkspacePlacement {
  /** One directory used as is (shared or per-send), absolute or relative to `base`. */
  dir?: string;
  /** Parent directory: the workspace is `<parent>/<sessionId>`; absolute or relative to `base`. */
  parent?: string;
  /** What relative `dir` and `parent` resolve against: the project root. */
  base?: string;
}

/**
 * What a workspace holds before the first local turn (docs/design/local-runtime.md "Preparation"):
 * generated files, skill folders copied from the project, the host's block in `AGENTS.md` and the
 * seed folder.
 */
export interface WorkspacePlan {
  /** Changes whenever anything below changes; a workspace prepared with it is not prepared again. */
  fingerprint: string;
  /** Workspace-relative path → contents; rewritten whenever the fingerprint changes. */
  files: Record<string, string>;
  /** Workspace-relative paths among `files` that must be executable (agent-tool scripts). */
  executables: string[];
  /** Folders copied in whole (skills in folder form): absolute source → workspace-relative target. */
  copies: Array<{ from: string; to: string }>;
  /** The host's section of `AGENTS.md`; text of the file outside that section is left alone. */
  agentsMd: string;
  /** `bot/sandbox/workspace`: copied once, into a fresh workspace, never over existing files. */
  seedDir?: string;
}

/** The harness tools a runtime implements, with their inputs (docs/design/local-runtime.md "Harness tools"). */
export interface HarnessInputs {
  shell: { command: string; timeoutMs?: number; stdin?: string };
  read: { path: string; offset?: number; limit?: number };
  edit: { path: string; oldText?: string; newText: string };
  grep: { pattern: string; path?: string; glob?: string };
  glob: { pattern: string };
  ls: { path?: string };
}
export type HarnessToolName = keyof HarnessInputs;

export interface HarnessCallContext {
  /** The session workspace: every path the tool touches must stay inside it. */
  cwd: string;
  signal: AbortSignal;
  /** `local.sandbox`: shell commands run sandboxed or not at all. */
  sandbox: boolean;
}

/** A harness tool's outcome as the model and the event stream see it. */
export interface HarnessOutcome {
  output: JsonValue;
  isError: boolean;
}

export interface HarnessPort {
  execute<N extends HarnessToolName>(name: N, input: HarnessInputs[N], context: HarnessCallContext): Promise<HarnessOutcome>;
}

/** A project's MCP connection (`bot/mcp-connections/<name>.ts`), as the runtime opens it. */
export type McpConnectionConfig =
  | {
      url: string;
      headers?: Record<string, string>;
      /** Sent as `Authorization: Bearer`, after the headers' templates are resolved. */
      accessToken?: string;
      /** A new access token when the server refused `accessToken` (401); the request is tried once more with it. */
      renewAccessToken?: () => Promise<string>;
    }
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string };

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}

/** Client side of MCP connections; `${NAME}` templates are resolved each time a client opens. */
export interface McpPort {
  listTools(connection: McpConnectionConfig, options: { signal: AbortSignal; base?: string }): Promise<McpToolInfo[]>;
  callTool(
    connection: McpConnectionConfig,
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; base?: string },
  ): Promise<HarnessOutcome>;
}

export interface RuntimePort {
  /** The agent's state root, when it has one on disk (tool context `stateRoot`). */
  readonly stateRoot?: string;
  /** The session's workspace directory, created on first use; `placement` overrides the default place. */
  sessionWorkspace(sessionId: string, placement?: WorkspacePlacement): Promise<string>;
  /**
   * Deletes the session's own workspace directory (the default place, or `<parent>/<sessionId>`);
   * a directory given as is (`placement.dir`: shared or chosen by the host) is left alone.
   */
  removeSessionWorkspace?(sessionId: string, placement?: WorkspacePlacement): Promise<void>;
  /** A fresh scratch directory for a session-less direct tool call; `remove` deletes it. */
  scratchWorkspace(): Promise<{ path: string; remove(): Promise<void> }>;
  /**
   * Runs a shell script in `cwd` with `stdin` (agent-execution tools). Absent on runtimes that
   * cannot run processes (Workers): agent tools then fail with a clear error.
   */
  runScript?(script: string, options: ScriptOptions): Promise<ScriptResult>;
  /**
   * Brings `dir` up to `plan` and writes the per-send `files` (workspace-relative paths). Cheap
   * when the workspace already matches the plan. Absent on runtimes without a filesystem.
   */
  prepareWorkspace?(dir: string, plan: WorkspacePlan, files?: Record<string, string>): Promise<void>;
  /** The built-in harness tools; absent where no local harness runs (Workers). */
  harness?: HarnessPort;
  /** MCP client connections; absent where the runtime cannot open them. */
  mcp?: McpPort;
  /**
   * Appends text to the file at the absolute `path`, creating it and its folders (the memory
   * journal writes `memory/journal.jsonl` in the project through it). Absent without a filesystem.
   */
  appendFile?(path: string, text: string): Promise<void>;
  /**
   * The addresses a host name resolves to (the system resolver), so a server-side post can be
   * refused when its target is a private network (docs/design/a2a-push.md "Targets"). Absent
   * where the runtime has no resolver (Workers): names are then judged as written.
   */
  resolveHost?(hostname: string): Promise<string[]>;
}
