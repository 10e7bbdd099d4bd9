/**
 * A real `redis-server` for tests and benchmarks (the Debian package; `.ci/run` installs it): on a
 * free loopback port, with its files in a temp folder, stopped and removed afterwards.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServer, startOnFreePort, stopProcess } from "./_server-process.ts";

/** The server binary, when installed. */
export const REDIS_SERVER = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find(
  (path) => spawnSync(path, ["--version"]).status === 0,
) ?? (spawnSync("redis-server", ["--version"]).status === 0 ? "redis-server" : undefined);

/** For a test title: why the Redis tests did not run. */
export const REDIS_MISSING = REDIS_SERVER ? "" : " (skipped: redis-server is not installed)";

export interface RedisServerOptions {
  /**
   * `appendfsync` when the append-only file is on: `always` syncs every write before it is
   * acknowledged (as the sqlite store does), `everysec` once a second. @default no AOF at all
   */
  fsync?: "always" | "everysec";
}

export interface RedisServer {
  port: number;
  url: string;
  /** Stops the server (SIGTERM), keeping its folder so `start` brings back the same data. */
  stop(): Promise<void>;
  /** Starts it again on the same port and folder. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  if (!REDIS_SERVER) throw new Error("redis-server is not installed");
  const dir = mkdtempSync(join(tmpdir(), "agent-serve-redis-"));
  let port = 0;
  const args = () => [
    "--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--daemonize", "no", "--loglevel", "warning",
    ...(options.fsync ? ["--appendonly", "yes", "--appendfsync", options.fsync] : ["--appendonly", "no"]),
  ];
  let child: ChildProcess | undefined;

  const start = async () => {
    const server = spawnServer(REDIS_SERVER!, args());
    child = server.proc;
    await waitForPort(port, server.proc, server.output, server.closed);
  };
  const stop = () => {
    const proc = child;
    child = undefined;
    return stopProcess(proc, "SIGTERM");
  };

  try {
    await startOnFreePort((free) => {
      port = free;
      return start();
    }, (error) => error instanceof PortTakenError);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The port was bound by another process before this server could. */
class PortTakenError extends Error {}

/**
 * Waits until the server answers a PING, and is this process's server: a server of another test
 * process that took the port meanwhile would answer too (INFO names its process id).
 */
async function waitForPort(port: number, proc: ChildProcess, output: () => string, closed: Promise<void>): Promise<void> {
  const { connect } = await import("node:net");
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      await closed;
      const message = `redis-server exited: ${output()}`;
      throw /Address already in use/.test(output()) ? new PortTakenError(message) : new Error(message);
    }
    const answer = await new Promise<{ ready: boolean; pid?: number }>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      let reply = "";
      socket.setEncoding("utf8");
      socket.once("error", () => resolve({ ready: false }));
      socket.once("close", () => resolve({ ready: false }));
      socket.once("connect", () => socket.write("PING\r\nINFO server\r\n"));
      socket.on("data", (data: string) => {
        reply += data;
        const pid = /process_id:(\d+)\r\n/.exec(reply)?.[1];
        if (!reply.startsWith("+PONG") && reply.includes("\r\n")) {
          socket.destroy();
          resolve({ ready: false });
        } else if (pid !== undefined) {
          socket.destroy();
          resolve({ ready: true, pid: Number(pid) });
        }
      });
    });
    if (answer.ready && answer.pid === proc.pid) return;
    if (answer.ready) {
      proc.kill("SIGKILL");
      throw new PortTakenError(`another redis-server (pid ${answer.pid}) answers on port ${port}`);
    }
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
