/**
 * `agent-serve storage migrate --from <url> --to <url>`: copies a store into another, between any
 * two drivers (docs/guide/storage.md, "Moving from sqlite"), and checks every copied log against
 * the source. Both URLs take the `--storage` forms; a sqlite store needs its path.
 * @module
 */
import { openStorage } from "../adapters/_storage.ts";
import { copyStorage, type CopyReport, type StorageDriver } from "../src/entries/storage.ts";
import { CommandError, EXIT_OK, UsageError, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { parseStorageUrl } from "./storage-url.ts";

export interface StorageMigrateArgs {
  from: string | undefined;
  to: string | undefined;
  json?: boolean;
}

export async function storageMigrateCommand(args: StorageMigrateArgs, io: CliIo): Promise<number> {
  const from = parse("--from", args.from);
  const to = parse("--to", args.to);
  // Each store as given: the URL names the one store to copy, not a mount's per-agent layout.
  const input = { stateRoot: io.cwd, mode: "single", slug: "", cwd: io.cwd } as const;
  const source = openStorage(from, input);
  let target: StorageDriver | undefined;
  const started = Date.now();
  let report: CopyReport;
  try {
    target = openStorage(to, input);
    report = await copyStorage(source, target, (progress) => {
      if (!args.json && io.stderr.isTTY) io.stderr.write(`\r${progress.sessions} sessions, ${progress.lines} lines`);
    });
  } catch (error) {
    throw new CommandError(`storage migrate: ${errorMessage(error).replace(/^\[agent-serve\] \[storage\] /, "")}`);
  } finally {
    await Promise.allSettled([source.close(), target?.close()]);
    if (!args.json && io.stderr.isTTY) io.stderr.write("\r\x1b[K");
  }
  const seconds = (Date.now() - started) / 1000;
  if (args.json) io.stdout.write(`${JSON.stringify({ ok: true, ...report, seconds })}\n`);
  else {
    io.stdout.write(
      `copied ${report.records} records and ${report.sessions} sessions (${report.logs} logs, ${report.lines} lines, each log read back and compared) in ${seconds.toFixed(1)} s\n`,
    );
  }
  return EXIT_OK;
}

// --- internals ---

function parse(flag: string, value: string | undefined) {
  if (value === undefined || value === "") throw new UsageError(`storage migrate needs ${flag} <url> (sqlite:<path>, redis://… or postgres://…)`);
  const choice = parseStorageUrl(value);
  if (choice.kind === "memory") throw new UsageError(`${flag} memory: keeps nothing to copy from or to`);
  if (choice.kind === "sqlite" && choice.path === undefined) throw new UsageError(`${flag} sqlite: needs the file's path (sqlite:<path>)`);
  return choice;
}
