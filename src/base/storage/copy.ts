/**
 * Copies one store into another, whatever their drivers (docs/guide/storage.md, "Moving from
 * sqlite"): every record but the running processes' coordination state, and every session's logs,
 * each then read back from the target and compared line for line. Leases and process inboxes are
 * not copied: they belong to the processes running now. Meant for stopped hosts: a session
 * written during the copy may be copied half way.
 * @module
 */
import { PROCESS_STATE_PREFIXES, SESSIONS_PREFIX, sessionIdOfRecordKey, sessionLogNames } from "./keys.ts";
import type { RecordWrite, StorageDriver } from "./types.ts";

export interface CopyReport {
  records: number;
  sessions: number;
  logs: number;
  lines: number;
}

/** Records per target commit: large enough to be quick, small enough for any driver's statement. */
const RECORD_BATCH = 500;

/**
 * Copies `from` into `to` and verifies every copied log. Rejects, before writing anything, when
 * the target already holds a session; rejects after copying when a log reads back differently.
 */
export async function copyStorage(from: StorageDriver, to: StorageDriver, onProgress?: (report: CopyReport) => void): Promise<CopyReport> {
  if ((await to.list(SESSIONS_PREFIX)).length > 0) {
    throw new Error("[agent-serve] [storage] the target store already holds sessions: copy into an empty store");
  }
  const report: CopyReport = { records: 0, sessions: 0, logs: 0, lines: 0 };
  const entries = (await from.entries("")).filter(([key]) => !PROCESS_STATE_PREFIXES.some((prefix) => key.startsWith(prefix)));
  const sessions = entries.map(([key]) => sessionIdOfRecordKey(key)).filter((id): id is string => id !== undefined);

  // Logs first: a session record in the target then always has its events behind it.
  for (const sessionId of sessions) {
    for (const log of sessionLogNames(sessionId)) {
      if (!(await from.hasLog(log))) continue;
      let at = 0;
      for await (const lines of from.read(log)) {
        // The expected index makes a log already in the target, or a second writer, fail the
        // copy rather than interleave with it.
        await to.append(log, lines, at);
        at += lines.length;
        report.lines += lines.length;
      }
      report.logs++;
      await verifyLog(from, to, log);
    }
    report.sessions++;
    onProgress?.({ ...report });
  }
  for (let i = 0; i < entries.length; i += RECORD_BATCH) {
    const records: RecordWrite[] = entries.slice(i, i + RECORD_BATCH).map(([key, value]) => ({ key, value }));
    await to.commit({ records });
    report.records += records.length;
  }
  onProgress?.({ ...report });
  return report;
}

// --- internals ---

/** Reads `log` from both stores and throws at the first line that differs. */
async function verifyLog(from: StorageDriver, to: StorageDriver, log: string): Promise<void> {
  const [source, target] = [lines(from, log), lines(to, log)];
  for (let index = 0; ; index++) {
    const [a, b] = await Promise.all([source.next(), target.next()]);
    if (a.done && b.done) return;
    if (a.done !== b.done || a.value !== b.value) {
      throw new Error(`[agent-serve] [storage] log ${log} differs in the target at line ${index}: the copy is incomplete`);
    }
  }
}

async function* lines(storage: StorageDriver, log: string): AsyncGenerator<string> {
  for await (const batch of storage.read(log)) yield* batch;
}
