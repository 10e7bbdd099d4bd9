/**
 * `agent-serve help [command] [--all] [--json]`: one command's help, every command's help
 * (`--all`), or the arguments and flags as JSON (`--json`), read from the cac definitions so
 * they never drift from what the parser accepts.
 * @module
 */
import type { CAC, Command } from "cac";
import { EXIT_OK, UsageError } from "./io.ts";
import type { CliIo } from "./io.ts";

export interface HelpArgs {
  command?: string;
  /** @default false */
  all?: boolean;
  /** @default false */
  json?: boolean;
}

/** Thrown by the help callback `main` installs: carries the rendered help text out of cac. */
export class HelpRequested extends Error {
  override readonly name = "HelpRequested";
}

/** The JSON shape of one command (`help <cmd> --json`). */
export interface CommandHelp {
  name: string;
  usage: string;
  description: string;
  arguments: Array<{ name: string; required: boolean; variadic: boolean }>;
  options: Array<{ flags: string; name: string; description: string; takesValue: boolean }>;
}

export function helpCommand(args: HelpArgs, cli: CAC, io: CliIo): number {
  const commands = cli.commands.filter((command) => command.name !== "");
  const selected = args.command === undefined ? undefined : commands.find((command) => command.isMatched(args.command ?? ""));
  if (args.command !== undefined && !selected) {
    throw new UsageError(`no command "${args.command}"; commands: ${commands.map((c) => c.name).join(", ")}`);
  }
  if (args.json) {
    const body = selected ? describeCommand(selected, cli) : { commands: commands.map((c) => describeCommand(c, cli)) };
    io.stdout.write(`${JSON.stringify(body)}\n`);
    return EXIT_OK;
  }
  if (selected) {
    io.stdout.write(`${helpText(selected)}\n`);
  } else if (args.all) {
    const texts = [helpText(cli.globalCommand), ...commands.map((command) => helpText(command))];
    io.stdout.write(`${texts.join(`\n\n${"─".repeat(60)}\n\n`)}\n`);
  } else {
    io.stdout.write(`${helpText(cli.globalCommand)}\n`);
  }
  return EXIT_OK;
}

/** The help text cac renders for `command` (captured from the help callback). */
export function helpText(command: Command): string {
  try {
    command.outputHelp();
  } catch (error) {
    if (error instanceof HelpRequested) return error.message;
    throw error;
  }
  throw new Error("[agent-serve] [cli] the help callback did not run");
}

// --- internals ---

function describeCommand(command: Command, cli: CAC): CommandHelp {
  const options = [...command.options, ...cli.globalCommand.options.filter((o) => o.name !== "version")];
  return {
    name: command.name,
    usage: `agent-serve ${command.rawName}`,
    description: command.description,
    arguments: command.args.map((arg) => ({ name: arg.value, required: arg.required, variadic: arg.variadic })),
    options: options.map((option) => ({
      flags: option.rawName,
      name: option.name,
      description: option.description,
      takesValue: !option.isBoolean,
    })),
  };
}
