/**
 * A real `redis-server` for tests and benchmarks (the Debian package; `.ci/run` installs it): on a
 * free loopback port, with its files in a temp folder, stopped and removed afterwards.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--daemonize", "no", "--loglevel", "warning"];
  args.push(...(options.fsync ? ["--appendonly", "yes", "--appendfsync", options.fsync] : ["--appendonly", "no"]));
  let child: ChildProcess | undefined;

  const start = async () => {
    const proc = spawn(REDIS_SERVER!, args, { stdio: ["ignore", "pipe", "pipe"] });
    child = proc;
    let output = "";
    proc.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    proc.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    await waitForPort(port, proc, () => output);
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    await exited;
  };

  await start();
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits until the server answers a PING. */
async function waitForPort(port: number, proc: ChildProcess, output: () => string): Promise<void> {
  const { connect } = await import("node:net");
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`redis-server exited: ${output()}`);
    const pong = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.setEncoding("utf8");
      socket.once("error", () => resolve(false));
      socket.once("connect", () => socket.write("PING\r\n"));
      socket.once("data", (data: string) => {
        socket.destroy();
        resolve(data.startsWith("+PONG"));
      });
    });
    if (pong) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
