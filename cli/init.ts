/**
 * `agent-serve init [dir] [--template basic]`: scaffolds an agent project that `serve` accepts
 * and answers with the scripted model. Refuses to write into a non-empty directory.
 * @module
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { slugProblem } from "../adapters/_discovery.ts";
import { CommandError, EXIT_OK, UsageError } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createStyle } from "./style.ts";
import { TEMPLATES } from "./templates.ts";

export interface InitArgs {
  /** Directory to create, relative to `io.cwd`. @default "." */
  dir?: string;
  /** @default "basic" */
  template?: string;
  /** Print `{ok, dir, template, files}`. @default false */
  json?: boolean;
}

export function initCommand(args: InitArgs, io: CliIo): number {
  const templateName = args.template ?? "basic";
  const template = Object.hasOwn(TEMPLATES, templateName) ? TEMPLATES[templateName] : undefined;
  if (!template) throw new UsageError(`unknown template "${templateName}"; templates: ${Object.keys(TEMPLATES).join(", ")}`);
  const dir = resolve(io.cwd, args.dir ?? ".");
  const name = basename(dir);
  const problem = slugProblem(name);
  if (problem) throw new UsageError(`the directory name becomes the agent's URL slug: ${problem}`);
  const existing = entries(dir);
  if (existing.length > 0) {
    throw new CommandError(`${dir} is not empty (${existing.slice(0, 3).join(", ")}${existing.length > 3 ? ", …" : ""}); init only writes into a new or empty directory`);
  }
  const files = template({ name });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text, { flag: "wx" });
  }
  if (args.json) {
    io.stdout.write(`${JSON.stringify({ ok: true, dir, template: templateName, files: Object.keys(files) })}\n`);
    return EXIT_OK;
  }
  const style = createStyle(io.stdout, io.env);
  const shown = relative(io.cwd, dir) || ".";
  const lines = [`${style.green("created")} ${shown} (template ${templateName})`, ...Object.keys(files).map((file) => `  ${file}`), "", "next:"];
  const cd = shown === "." ? "" : `cd ${shown} && `;
  lines.push(`  ${cd}npx agent-serve chat     talk to it in the terminal`, `  ${cd}npx agent-serve dev      serve it on http://127.0.0.1:3000/${name}`);
  io.stdout.write(`${lines.join("\n")}\n`);
  return EXIT_OK;
}

// --- internals ---

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return [];
    if (error instanceof Error && "code" in error && error.code === "ENOTDIR") throw new CommandError(`${dir} is a file`);
    throw error;
  }
}
