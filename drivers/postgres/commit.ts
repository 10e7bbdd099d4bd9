/**
 * A commit as the arguments of the schema's `commit_batch` function, and its conflicts as the
 * port's errors (docs/design/storage.md, "Postgres driver"). Parallel arrays rather than one JSON
 * document: Postgres receives the lines as text parameters, byte for byte, never re-encoded.
 * @module
 */
import { LogConflictError, RecordConflictError, type CommitBatch } from "../../src/base/storage/types.ts";
import { CONFLICT_STATE } from "./schema.ts";

export interface CommitArgs {
  keys: string[];
  values: string[];
  /** `s`(et) or `d`(elete). */
  ops: string[];
  /** `-` none, `a` must be absent, `v` must equal `expected`. */
  checks: string[];
  expected: string[];
  logs: string[];
  /** -1: no expected index. */
  expectedIndexes: number[];
  counts: number[];
  /** Every append's lines, one after another. */
  lines: string[];
}

export function toCommitArgs(batch: CommitBatch): CommitArgs {
  const args: CommitArgs = { keys: [], values: [], ops: [], checks: [], expected: [], logs: [], expectedIndexes: [], counts: [], lines: [] };
  for (const write of batch.records ?? []) {
    args.keys.push(write.key);
    args.values.push(write.value ?? "");
    args.ops.push(write.value === null ? "d" : "s");
    args.checks.push(write.expected === undefined ? "-" : write.expected === null ? "a" : "v");
    args.expected.push(write.expected ?? "");
  }
  for (const append of batch.appends ?? []) {
    args.logs.push(append.log);
    args.expectedIndexes.push(append.expectedIndex ?? -1);
    args.counts.push(append.lines.length);
    args.lines.push(...append.lines);
  }
  return args;
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
