#!/usr/bin/env node
// The CLI is TypeScript run by Node's own type stripping (Node >= 22.13). On an older Node, run
// again under the `node` package's binary when it is installed.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const bundled = fileURLToPath(new URL("../node_modules/node/bin/node", import.meta.url));

if ((major < 22 || (major === 22 && minor < 13)) && existsSync(bundled)) {
  const child = spawn(bundled, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? 128 + (constants.signals[signal] ?? 1);
  });
} else {
  // The built-in SQLite store is stable for our use; Node still labels `node:sqlite` experimental.
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const text = typeof warning === "string" ? warning : warning?.message;
    if (typeof text === "string" && text.startsWith("SQLite is an experimental feature")) return;
    return emitWarning.call(process, warning, ...rest);
  };
  const { main } = await import("../cli/main.ts");
  const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
  process.exitCode = await main({ argv: process.argv.slice(2), ...io });
}
