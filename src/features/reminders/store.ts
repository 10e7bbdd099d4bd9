/**
 * Reminder records in the agent's key/value storage: `reminders/<id>`, one JSON record each.
 * @module
 */
import { randomId } from "../../base/ids.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import type { ReminderRecord } from "../../base/definitions/reminders.ts";
import { REMINDERS_PREFIX as PREFIX } from "../../base/storage/keys.ts";

const ID = /^rem_[A-Za-z0-9]{1,64}$/;

export const newReminderId = (): string => `rem_${randomId(20)}`;

/** Reminder ids come from URLs and model input; anything not shaped like one is simply unknown. */
export const isReminderId = (value: string): boolean => ID.test(value);

export class ReminderStore {
  readonly #storage: StorageDriver;

  constructor(storage: StorageDriver) {
    this.#storage = storage;
  }

  async get(id: string): Promise<ReminderRecord | undefined> {
    if (!isReminderId(id)) return undefined;
    return parse(await this.#storage.get(`${PREFIX}${id}`));
  }

  async put(record: ReminderRecord): Promise<void> {
    await this.#storage.set(`${PREFIX}${record.id}`, JSON.stringify(record));
  }

  /** Every stored record, read `concurrency` at a time; unreadable records are skipped. */
  async all(concurrency = 64): Promise<ReminderRecord[]> {
    const keys = await this.#storage.list(PREFIX);
    const out = Array.from<ReminderRecord | undefined>({ length: keys.length });
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < keys.length) {
        const index = next++;
        out[index] = parse(await this.#storage.get(keys[index]!));
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, keys.length) }, worker));
    return out.filter((record): record is ReminderRecord => record !== undefined);
  }
}

// --- internals ---

function parse(raw: string | undefined): ReminderRecord | undefined {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as ReminderRecord;
    return typeof value === "object" && value !== null && typeof value.id === "string" ? value : undefined;
  } catch {
    // A record torn by an external edit is skipped rather than stopping every other reminder.
    return undefined;
  }
}
