/**
 * The local runtime port on Node: session workspaces (under the state root, or where the agent's
 * local options place them), scratch directories for session-less direct tool calls, agent tool
 * scripts run with `sh -c`, workspace preparation, the harness tools and MCP client connections.
 * @module
 */
import { lookup } from "node:dns/promises";
import { appendFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createError } from "../src/base/errors.ts";
import type { RuntimePort, WorkspacePlacement } from "../src/base/ports/runtime.ts";
import { createHarnessPort } from "./workspace/harness.ts";
import { createMcpPort } from "./workspace/mcp-client.ts";
import { createWorkspacePreparer } from "./workspace/prepare.ts";
import { runScript } from "./workspace/process.ts";
import { sandboxArgv } from "./workspace/shell.ts";

export interface LocalRuntimeOptions {
  /** The agent's state root; session workspaces live in `<stateRoot>/workspaces/<sessionId>` by default. */
  stateRoot: string;
  /** Bytes of stdout and of stderr kept per agent-tool script run; the rest is dropped. @default 1048576 */
  maxOutputBytes?: number;
  /** Bytes of stdout and of stderr the `shell` tool returns to the model per command. @default 32768 */
  shellOutputBytes?: number;
  /** After the timeout or abort, how long the process group has after SIGTERM before SIGKILL. @default 1000 */
  killGraceMs?: number;
  /** The bubblewrap binary used under `local.sandbox` (a bare name is looked up on PATH). @default "bwrap" */
  sandboxCommand?: string;
  /** How long one `grep` harness call may search before it is stopped. @default 30000 */
  grepTimeoutMs?: number;
  /** Environment `${NAME}` templates of MCP connections read from. @default process.env */
  env?: Record<string, string | undefined>;
}

export function createLocalRuntime(options: LocalRuntimeOptions): RuntimePort {
  const { stateRoot } = options;
  const maxOutputBytes = options.maxOutputBytes ?? 1024 * 1024;
  const killGraceMs = options.killGraceMs ?? 1000;
  const sandboxCommand = options.sandboxCommand ?? "bwrap";
  return {
    stateRoot,
    async sessionWorkspace(sessionId, placement) {
      // Ids are validated upstream; refusing separators here keeps the path inside its parent anyway.
      if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) throw createError("runtime", `not a session id: ${JSON.stringify(sessionId)}`);
      const dir = placeWorkspace(stateRoot, sessionId, placement);
      await mkdir(dir, { recursive: true });
      return dir;
    },
    async removeSessionWorkspace(sessionId, placement) {
      if (!/^[A-Za-z0-9_-]+$/.test(sessionId) || placement?.dir) return;
      await rm(placeWorkspace(stateRoot, sessionId, placement), { recursive: true, force: true });
    },
    async scratchWorkspace() {
      const path = await mkdtemp(join(tmpdir(), "agent-serve-scratch-"));
      return { path, remove: () => rm(path, { recursive: true, force: true }) };
    },
    async runScript(script, run) {
      const argv = await sandboxArgv({ cwd: run.cwd, sandbox: run.sandbox === true }, sandboxCommand);
      if (typeof argv === "string") throw createError("runtime", argv);
      return runScript(script, { ...run, maxOutputBytes, killGraceMs, ...(argv ? { argv } : {}) });
    },
    prepareWorkspace: createWorkspacePreparer(),
    harness: createHarnessPort({
      maxOutputBytes: options.shellOutputBytes ?? 32 * 1024,
      killGraceMs,
      sandboxCommand,
      grepTimeoutMs: options.grepTimeoutMs ?? 30_000,
    }),
    mcp: createMcpPort(options.env ? { env: options.env } : {}),
    async appendFile(path, text) {
      await mkdir(dirname(path), { recursive: true });
      await appendFile(path, text);
    },
    async resolveHost(hostname) {
      return (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
    },
  };
}

// --- internals ---

function placeWorkspace(stateRoot: string, sessionId: string, placement: WorkspacePlacement | undefined): string {
  const base = placement?.base ?? process.cwd();
  if (placement?.dir) return resolve(base, placement.dir);
  if (placement?.parent) return join(resolve(base, placement.parent), sessionId);
  return join(stateRoot, "workspaces", sessionId);
}
