/**
 * The runtime port: where tools and (later) the harness run. The core never touches a filesystem;
 * the Node adapter supplies workspaces, scratch directories and script execution.
 * @module
 */

export interface ScriptResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** True when the run was cut short by the timeout or the abort signal. */
  killed: boolean;
}

export interface RuntimePort {
  /** The agent's state root, when it has one on disk (tool context `stateRoot`). */
  readonly stateRoot?: string;
  /** The session's workspace directory, created on first use. */
  sessionWorkspace(sessionId: string): Promise<string>;
  /** A fresh scratch directory for a session-less direct tool call; `remove` deletes it. */
  scratchWorkspace(): Promise<{ path: string; remove(): Promise<void> }>;
  /**
   * Runs a shell script in `cwd` with `stdin` (agent-execution tools). Absent on runtimes that
   * cannot run processes (Workers): agent tools then fail with a clear error.
   */
  runScript?(script: string, options: { cwd: string; stdin: string; timeoutMs: number; signal: AbortSignal }): Promise<ScriptResult>;
}
