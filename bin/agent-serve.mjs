#!/usr/bin/env node
// The `agent-serve` command on Node (>= 22.13), Bun (`bun <bin> serve`) and Deno
// (`deno run -A <bin> serve`). An installed package runs its compiled dist/; a checkout, which
// has the TypeScript sources, runs those (docs/guide/embedding.md, "Installing").
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

const runtime = globalThis.Bun ? "bun" : globalThis.Deno ? "deno" : "node";
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);

if (runtime === "node" && (major < 22 || (major === 22 && minor < 13))) {
  const { binary, withoutBinary } = findNodePackage();
  if (binary) {
    const child = spawn(binary, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
    for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
    child.on("exit", (code, signal) => {
      process.exitCode = code ?? 128 + (constants.signals[signal] ?? 1);
    });
  } else {
    // The `node` package puts its binary in place from an install script, which npm 12 skips unless
    // the project's package.json approves it (docs/guide/embedding.md, "Installing").
    const fix = withoutBinary
      ? `the project's \`node\` package has no binary because npm did not run its install script: approve it with \`npm install-scripts approve node\`, then run \`npm install\` again`
      : "install a newer Node, or add it to the project with `npm install node@22`";
    process.stderr.write(`agent-serve: needs Node.js 22.13 or newer (this is ${process.version}); ${fix}\n`);
    process.exitCode = 1;
  }
} else {
  // The built-in SQLite store is stable for our use; Node still labels `node:sqlite` experimental.
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const text = typeof warning === "string" ? warning : warning?.message;
    if (typeof text === "string" && text.startsWith("SQLite is an experimental feature")) return;
    return emitWarning.call(process, warning, ...rest);
  };
  const fromSource = existsSync(new URL("../cli/main.ts", import.meta.url));
  const entry = (path) => new URL(fromSource ? `../${path}.ts` : `../dist/${path}.js`, import.meta.url).href;
  const [{ main }, adapter, { exitQuietlyOnClosedPipe }] = await Promise.all([
    import(entry("cli/main")),
    import(entry(`adapters/${runtime}`)),
    import(entry("cli/closed-pipe")),
  ]);
  exitQuietlyOnClosedPipe([process.stdout, process.stderr], (code) => process.exit(code));
  const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
  const exitCode = await main({ argv: process.argv.slice(2), runtime: adapter[`${runtime}Runtime`], ...io });
  process.exitCode = exitCode;
  // Deno keeps running while anything is pending; Node and Bun exit on their own.
  if (runtime === "deno") globalThis.Deno.exit(exitCode);
}

/**
 * The `node` package's binary (Node 22) installed next to this package or in the project, and
 * whether a `node` package was found without one (its install script did not run).
 */
function findNodePackage() {
  let withoutBinary = false;
  for (const base of [import.meta.url, `${process.cwd()}/`]) {
    try {
      const manifest = createRequire(base).resolve("node/package.json");
      const binary = fileURLToPath(new URL("bin/node", `file://${manifest}`));
      if (existsSync(binary)) return { binary, withoutBinary };
      withoutBinary = true;
    } catch {
      // Not installed there.
    }
  }
  return { binary: undefined, withoutBinary };
}
