/**
 * `agent-serve convert-automation <file>`: an automation description (YAML or JSON; the format is
 * in docs/guide/cli.md "convert-automation") turned into an agent project; `--dry-run` prints
 * the files instead of writing them.
 * @module
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join, relative, resolve } from "node:path";
import { parseAutomation } from "./automation/automation.ts";
import { automationProject } from "./automation/project-files.ts";
import { CommandError, EXIT_OK, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";

export interface ConvertAutomationArgs {
  file: string;
  /** Where the project goes, relative to `io.cwd`. @default `./<name>` */
  out?: string;
  dryRun?: boolean;
  json?: boolean;
}

export async function convertAutomationCommand(args: ConvertAutomationArgs, io: CliIo): Promise<number> {
  const path = resolve(io.cwd, args.file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new CommandError(`cannot read ${path}: ${errorMessage(error)}`);
  }
  const automation = parseAutomation(text, args.file, basename(path, extname(path)));
  const files = automationProject(automation);
  const dir = resolve(io.cwd, args.out ?? automation.name);
  if (args.dryRun) {
    if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, dryRun: true, dir, automation, files })}\n`);
    else for (const [file, content] of Object.entries(files)) io.stdout.write(`--- ${join(dir, file)}\n${content}`);
    return EXIT_OK;
  }
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new CommandError(`${dir} is not empty: pass --out <new folder> (or --dry-run to see the files)`);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), content);
  }
  const shown = relative(io.cwd, dir) || ".";
  if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, dir, automation, files: Object.keys(files) })}\n`);
  else io.stdout.write(`wrote ${Object.keys(files).join(", ")} in ${shown}\nnext: agent-serve validate ${shown}\n`);
  return EXIT_OK;
}
