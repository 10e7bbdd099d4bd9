/**
 * `agent-serve secrets set NAME... --target cloudflare` and `secrets list`: a built worker's
 * secrets through the user's own `wrangler secret put` / `wrangler secret list` (docs/guide/
 * cloudflare.md "Secrets"). Names only on the command line; values come from a hidden prompt per
 * name or from stdin, one line per name, and are piped to wrangler, never printed. `NAME=VALUE`
 * arguments are refused unless `--from-argv` is given.
 * @module
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { INSTALL_HINT, findWrangler, runWrangler } from "./cloudflare/wrangler.ts";
import { CommandError, EXIT_FAILURE, EXIT_OK, UsageError } from "./io.ts";
import type { CliIo } from "./io.ts";
import { readSecret } from "./secret-input.ts";
import { shellQuote } from "./shell-quote.ts";

/** docs/guide/cloudflare.md "Secrets": UPPER_SNAKE_CASE, starting with a letter, at most 64. */
const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
const MAX_VALUE_BYTES = 4096;
const MAX_SECRETS = 32;

export interface SecretsArgs {
  action: "set" | "list";
  /** `set`: the names (or `NAME=VALUE` with `fromArgv`). */
  names: string[];
  target: "cloudflare";
  /** The project directory, relative to `io.cwd`. @default "." */
  dir?: string;
  /** The build folder holding `wrangler.jsonc`. @default `<dir>/.agent-serve/cloudflare` */
  out?: string;
  fromArgv?: boolean;
  /** Print the wrangler commands (names only) and run nothing. */
  dryRun?: boolean;
  json?: boolean;
}

export async function secretsCommand(args: SecretsArgs, io: CliIo): Promise<number> {
  const dir = resolve(io.cwd, args.dir ?? ".");
  const outDir = resolve(io.cwd, args.out ?? join(dir, ".agent-serve", "cloudflare"));
  const config = join(outDir, "wrangler.jsonc");
  if (!existsSync(config)) throw new CommandError(`${config} does not exist: build the worker first (agent-serve build --target cloudflare${args.dir ? ` ${args.dir}` : ""})`);
  const wrangler = findWrangler(dir, io.env);
  if (!wrangler && !args.dryRun) throw new CommandError(INSTALL_HINT);
  const executable = wrangler ?? "wrangler";
  // With --json the result is the only thing on stdout; wrangler's own output goes to stderr.
  const passthrough = { ...io, stdout: args.json ? io.stderr : io.stdout };
  if (args.action === "list") return listSecrets(args, executable, config, outDir, io);

  const pairs = args.names.map((raw) => splitArgument(raw, args.fromArgv === true));
  if (pairs.length === 0) throw new UsageError("secrets set needs at least one NAME (the values come from a hidden prompt or stdin lines)");
  if (pairs.length > MAX_SECRETS) throw new UsageError(`at most ${MAX_SECRETS} secrets per deployment (got ${pairs.length})`);
  const runs = pairs.map(({ name }) => ["secret", "put", name, "--config", config]);
  if (args.dryRun) {
    const commands = runs.map((argv) => `cd ${shellQuote(outDir)} && ${shellQuote(executable)} ${argv.map(shellQuote).join(" ")}`);
    if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, dryRun: true, names: pairs.map((p) => p.name), commands: runs.map((argv) => [executable, ...argv]), cwd: outDir })}\n`);
    else io.stdout.write(`would run (each value on its stdin):\n${commands.map((c) => `  ${c}`).join("\n")}\n`);
    return EXIT_OK;
  }
  const values = await readValues(pairs, io);
  for (const [i, { name }] of pairs.entries()) {
    const value = values[i]!;
    if (value === "") throw new UsageError(`the value of ${name} is empty`);
    if (new TextEncoder().encode(value).byteLength > MAX_VALUE_BYTES) throw new UsageError(`the value of ${name} is longer than ${MAX_VALUE_BYTES} bytes`);
  }
  const set: string[] = [];
  for (const [i, argv] of runs.entries()) {
    const name = pairs[i]!.name;
    const code = await runWrangler({ wrangler: executable, args: argv, cwd: outDir, input: values[i]! }, passthrough);
    if (code !== 0) {
      io.stderr.write(`agent-serve: wrangler secret put ${name} exited with code ${code}${set.length ? ` (already set: ${set.join(", ")})` : ""}\n`);
      return EXIT_FAILURE;
    }
    set.push(name);
  }
  if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, set })}\n`);
  else io.stdout.write(`set ${set.join(", ")} on the worker of ${dirname(config)}\n`);
  return EXIT_OK;
}

// --- internals ---

function splitArgument(raw: string, fromArgv: boolean): { name: string; value?: string } {
  const equals = raw.indexOf("=");
  if (equals !== -1 && !fromArgv) {
    throw new UsageError(`${raw.slice(0, equals)}=… puts a secret on the command line (shell history, process lists): pass the name only and give the value on stdin or at the prompt, or add --from-argv`);
  }
  const name = equals === -1 ? raw : raw.slice(0, equals);
  if (!SECRET_NAME.test(name)) throw new UsageError(`secret name ${JSON.stringify(name)} must be UPPER_SNAKE_CASE, start with a letter and have at most 64 characters`);
  return equals === -1 ? { name } : { name, value: raw.slice(equals + 1) };
}

/** The values: from the arguments (`--from-argv`), else stdin lines in name order, else a hidden prompt per name. */
async function readValues(pairs: Array<{ name: string; value?: string }>, io: CliIo): Promise<string[]> {
  const missing = pairs.filter((pair) => pair.value === undefined);
  if (missing.length === 0) return pairs.map((pair) => pair.value!);
  const input = io.stdin ?? process.stdin;
  let read: string[];
  if (input.isTTY === true && input.setRawMode) {
    read = [];
    for (const { name } of missing) read.push(await readSecret(io, `${name}: `));
  } else {
    let text = "";
    input.setEncoding("utf8");
    for await (const chunk of input) text += String(chunk);
    read = text.split(/\r?\n/);
    if (read.at(-1) === "") read.pop();
    if (read.length !== missing.length) {
      throw new UsageError(`stdin has ${read.length} line${read.length === 1 ? "" : "s"} for ${missing.length} secret${missing.length === 1 ? "" : "s"} (${missing.map((p) => p.name).join(", ")}): give one value per line, in order`);
    }
  }
  let next = 0;
  return pairs.map((pair) => pair.value ?? read[next++]!);
}

async function listSecrets(args: SecretsArgs, wrangler: string, config: string, outDir: string, io: CliIo): Promise<number> {
  const argv = ["secret", "list", "--config", config, "--format", "json"];
  if (args.dryRun) {
    io.stdout.write(args.json ? `${JSON.stringify({ ok: true, dryRun: true, command: [wrangler, ...argv], cwd: outDir })}\n` : `would run: cd ${shellQuote(outDir)} && ${[wrangler, ...argv].map(shellQuote).join(" ")}\n`);
    return EXIT_OK;
  }
  let captured = "";
  const code = await runWrangler({ wrangler, args: argv, cwd: outDir }, { ...io, stdout: { write: (chunk: string) => (captured += chunk) } });
  if (code !== 0) {
    io.stderr.write(`agent-serve: wrangler secret list exited with code ${code}\n`);
    return EXIT_FAILURE;
  }
  let names: string[];
  try {
    const parsed = JSON.parse(captured) as Array<{ name?: unknown }>; // SAFETY: checked element by element below
    names = parsed.map((entry) => entry.name).filter((name): name is string => typeof name === "string").sort();
  } catch {
    throw new CommandError(`wrangler secret list did not print JSON:\n${captured}`);
  }
  io.stdout.write(args.json ? `${JSON.stringify({ ok: true, names })}\n` : `${names.length ? names.join("\n") : "(no secrets)"}\n`);
  return EXIT_OK;
}
