/**
 * A commit as the arguments of the schema's `commit_batch` function, and its conflicts as the
 * port's errors (docs/design/storage.md, "Postgres driver"). Parallel arrays rather than one JSON
 * document: Postgres receives the lines as text parameters, byte for byte, never re-encoded.
 * @module
 */
import { LogConflictError, RecordConflictError, type CommitBatch } from "../../src/base/storage/types.ts";
import { CONFLICT_STATE } from "./schema.ts";

export interface CommitArgs {
  /** The records, sorted by key (the order the function locks them in). */
  keys: string[];
  values: string[];
  /** `s`(et) or `d`(elete). */
  ops: string[];
  /** `-` none, `a` must be absent, `v` must equal `expected`. */
  checks: string[];
  expected: string[];
  /** Each sorted record's place in the commit (1-based), for the conflict it reports. */
  positions: number[];
  /** Every log appended to, sorted by name, with the lines this commit appends to it. */
  heads: string[];
  totals: number[];
  /** Per append, in commit order: its log among `heads` (1-based), expected index (-1: none), line count. */
  appendHeads: number[];
  expectedIndexes: number[];
  counts: number[];
  /** Every append's lines, one after another. */
  lines: string[];
}

export function toCommitArgs(batch: CommitBatch): CommitArgs {
  const args: CommitArgs = { keys: [], values: [], ops: [], checks: [], expected: [], positions: [], heads: [], totals: [], appendHeads: [], expectedIndexes: [], counts: [], lines: [] };
  const records = (batch.records ?? []).map((write, i) => ({ write, position: i + 1 }));
  records.sort((a, b) => (a.write.key < b.write.key ? -1 : a.write.key > b.write.key ? 1 : a.position - b.position));
  for (const { write, position } of records) {
    args.keys.push(write.key);
    args.values.push(write.value ?? "");
    args.ops.push(write.value === null ? "d" : "s");
    args.checks.push(write.expected === undefined ? "-" : write.expected === null ? "a" : "v");
    args.expected.push(write.expected ?? "");
    args.positions.push(position);
  }
  const appends = batch.appends ?? [];
  const totals = new Map<string, number>();
  for (const append of appends) totals.set(append.log, (totals.get(append.log) ?? 0) + append.lines.length);
  args.heads = [...totals.keys()].sort();
  args.totals = args.heads.map((log) => totals.get(log)!);
  for (const append of appends) {
    args.appendHeads.push(args.heads.indexOf(append.log) + 1);
    args.expectedIndexes.push(append.expectedIndex ?? -1);
    args.counts.push(append.lines.length);
    args.lines.push(...append.lines);
  }
  return args;
}

/** Several commits' arguments one after another, with how many elements of each are whose. */
export interface GroupArgs {
  records: number[];
  heads: number[];
  appends: number[];
  lines: number[];
  all: CommitArgs;
}

export function toGroupArgs(group: readonly CommitArgs[]): GroupArgs {
  const all: CommitArgs = { keys: [], values: [], ops: [], checks: [], expected: [], positions: [], heads: [], totals: [], appendHeads: [], expectedIndexes: [], counts: [], lines: [] };
  const out: GroupArgs = { records: [], heads: [], appends: [], lines: [], all };
  for (const args of group) {
    for (const field of Object.keys(all) as Array<keyof CommitArgs>) (all[field] as unknown[]).push(...args[field]);
    out.records.push(args.keys.length);
    out.heads.push(args.heads.length);
    out.appends.push(args.appendHeads.length);
    out.lines.push(args.lines.length);
  }
  return out;
}

/** The port's conflict error for a conflict the function raised; any other error as it is. */
export function commitResult(batch: CommitBatch, error: unknown): unknown {
  const { code, message, detail } = (error ?? {}) as { code?: unknown; message?: unknown; detail?: unknown };
  if (code !== CONFLICT_STATE || typeof detail !== "string") return error;
  const [position, actual] = detail.split(" ").map(Number) as [number, number | undefined];
  if (message === "record") return new RecordConflictError(batch.records![position - 1]!.key);
  const append = batch.appends![position - 1]!;
  return new LogConflictError(append.log, append.expectedIndex!, actual ?? 0);
}
