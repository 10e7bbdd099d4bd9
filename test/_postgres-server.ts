/**
 * A real PostgreSQL server for tests and benchmarks (Debian's `postgresql` package; `.ci/run`
 * installs it): a fresh cluster (`initdb`) in a temp folder, on a free loopback port, stopped and
 * removed afterwards. Postgres refuses to run as root, so under root the cluster belongs to the
 * package's `postgres` user and its programs run as that user.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServer, startOnFreePort, stopProcess } from "./_server-process.ts";

/** The folder of the server's programs (`initdb`, `postgres`), when installed. */
export const POSTGRES_BIN: string | undefined = findBin();

/** For a test title: why the Postgres tests did not run. */
export const POSTGRES_MISSING: string = POSTGRES_BIN ? "" : " (skipped: the postgresql server is not installed)";

export interface PostgresServerOptions {
  /**
   * `fsync=on` (what production runs) or off: tests that do not measure durability skip the
   * syncs and run faster. @default false
   */
  fsync?: boolean;
}

export interface PostgresServer {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on loopback). */
  url: string;
  /** Stops the server (fast shutdown: clients are disconnected), keeping its folder. */
  stop(): Promise<void>;
  /**
   * Ends the server without a checkpoint (immediate shutdown, SIGQUIT): the next start recovers
   * from the WAL, as after a crash.
   */
  crash(): Promise<void>;
  /** Starts it again on the same port and folder (after a crash, Postgres recovers from its WAL). */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

export async function startPostgresServer(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  if (!POSTGRES_BIN) throw new Error("the postgresql server is not installed");
  const dir = mkdtempSync(join(tmpdir(), "agent-serve-postgres-"));
  const data = join(dir, "data");
  const owner = serverUser();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const as = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const init = spawnSync(join(POSTGRES_BIN, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], {
    ...as,
    encoding: "utf8",
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.error}`);
  let port = 0;
  const settings = () => ({
    listen_addresses: "127.0.0.1",
    port: String(port),
    unix_socket_directories: dir,
    fsync: options.fsync ? "on" : "off",
    synchronous_commit: options.fsync ? "on" : "off",
    full_page_writes: options.fsync ? "on" : "off",
    max_connections: "200",
    shared_buffers: "64MB",
  });
  const args = () => ["-D", data, ...Object.entries(settings()).flatMap(([name, value]) => ["-c", `${name}=${value}`])];
  let child: ChildProcess | undefined;

  const start = async () => {
    const server = spawnServer(join(POSTGRES_BIN!, "postgres"), args(), as);
    child = server.proc;
    await waitForReady(port, server.proc, server.output, server.closed);
  };
  const stopWith = (signal: NodeJS.Signals) => {
    const proc = child;
    child = undefined;
    return stopProcess(proc, signal);
  };

  try {
    await startOnFreePort((free) => {
      port = free;
      return start();
    }, (error) => /Address already in use/.test(String(error)));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: () => stopWith("SIGINT"),
    crash: () => stopWith("SIGQUIT"),
    close: async () => {
      await stopWith("SIGINT");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// --- internals ---

function findBin(): string | undefined {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const bin = join(root, version, "bin");
    if (existsSync(join(bin, "initdb")) && existsSync(join(bin, "postgres"))) return bin;
  }
  return undefined;
}

/** Under root, the package's `postgres` user; otherwise the current user runs the server. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (uid.status !== 0 || gid.status !== 0) throw new Error("running as root, and there is no postgres user to run the server as");
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Waits until the server accepts a startup message: an SSL request answered with `N` (no SSL)
 * means the postmaster is listening; it then admits connections once recovery is done, which the
 * log line "ready to accept connections" says.
 */
async function waitForReady(port: number, proc: ChildProcess, output: () => string, closed: Promise<void>): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      await closed;
      throw new Error(`postgres exited: ${output()}`);
    }
    const listening = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("error", () => resolve(false));
      // SSLRequest: length 8, code 80877103.
      socket.once("connect", () => socket.write(Buffer.from([0, 0, 0, 8, 4, 210, 22, 47])));
      socket.once("data", (reply: Buffer) => {
        socket.destroy();
        resolve(reply.length > 0);
      });
    });
    if (listening && /ready to accept connections/.test(output())) return;
    if (Date.now() > deadline) throw new Error(`postgres did not start on port ${port}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
