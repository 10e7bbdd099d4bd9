/**
 * What the real database servers of the tests (test/_postgres-server.ts, test/_redis-server.ts)
 * share: a free loopback port, tried again when another process takes it first, and a child
 * process whose output is kept for the error that says why it did not start.
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { createServer } from "node:net";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `start` on a free port and answers the port. The free port is only free when it is picked:
 * another process may bind it before the server does (the suite runs beside other test
 * processes), so a failure `taken` says is a port taken means trying another, five times at most.
 */
export async function startOnFreePort(start: (port: number) => Promise<void>, taken: (error: unknown) => boolean): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      await start(port);
      return port;
    } catch (error) {
      if (!taken(error) || attempt === 5) throw error;
    }
  }
}

export interface ServerProcess {
  proc: ChildProcess;
  /** All it printed so far, stdout and stderr. */
  output(): string;
  /** Settles once its pipes are closed: exit can come before the last output. */
  closed: Promise<void>;
}

export function spawnServer(command: string, args: string[], options: SpawnOptions = {}): ServerProcess {
  const proc = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  proc.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  proc.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const closed = new Promise<void>((resolve) => proc.once("close", () => resolve()));
  return { proc, output: () => output, closed };
}

/** Sends `signal` and waits for the exit; nothing when the process is gone already. */
export async function stopProcess(proc: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill(signal);
  await exited;
}
