/**
 * A coordinator and any number of session objects in one Node process, for the placed storage
 * driver: each object has its own in-memory `node:sqlite` database, Durable Object driver and real
 * storage endpoint (`storageEndpoint`), and the transport between them sends real `Request`s to
 * that endpoint. Only the network is left out: a refused object's transport fails as an
 * unreachable one would.
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { createPlacedStorage, type Home, type PlacedStorage } from "../drivers/durable-object/placed-storage.ts";
import { homeName } from "../drivers/durable-object/homes.ts";
import type { StorageTransport } from "../drivers/durable-object/storage-wire.ts";
import { storageEndpoint, STORAGE_HEADER, type WireRequest } from "../drivers/durable-object/storage-wire.ts";
import { createDurableObjectStorage, type DurableObjectSqlStorage, type DurableObjectStorageDriver } from "../drivers/durable-object/index.ts";
import { nodeSqlStorage } from "./_node-sql-storage.ts";

export const NAMESPACE = "hello";

interface ObjectModel {
  db: DatabaseSync;
  sql: DurableObjectSqlStorage;
  drivers: Map<string, DurableObjectStorageDriver>;
  endpoint: (request: Request) => Promise<Response>;
}

export class World {
  readonly #objects = new Map<string, ObjectModel>();
  /** Objects whose transport fails (by home name). */
  readonly refused = new Set<string>();
  readonly warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  readonly #opened: PlacedStorage[] = [];

  /** The placed driver of a host in `here`; closed by `close()`. */
  async placed(here: Home): Promise<PlacedStorage> {
    const driver = await createPlacedStorage({
      namespace: NAMESPACE,
      here,
      local: this.local(here),
      transport: (home) => this.transport(home),
      logger: { warn: (message, fields) => void this.warnings.push({ message, ...(fields ? { fields } : {}) }) },
    });
    this.#opened.push(driver);
    return driver;
  }

  /** The object's own driver for the namespace, shared by its hosts and its endpoint. */
  local(home: Home): DurableObjectStorageDriver {
    const object = this.#object(home);
    let driver = object.drivers.get(NAMESPACE);
    if (!driver) object.drivers.set(NAMESPACE, (driver = createDurableObjectStorage(object.sql, { namespace: NAMESPACE })));
    return driver;
  }

  /** A new instance of the object on the same database (its in-memory state is gone). */
  restart(home: Home): void {
    const { db } = this.#object(home);
    this.#objects.set(homeName(home), model(db, () => this.local(home)));
  }

  transport(home: Home): StorageTransport {
    return async (wire: WireRequest, signal?: AbortSignal) => {
      if (this.refused.has(homeName(home))) throw new TypeError(`fetch failed: ${homeName(home)} is unreachable`);
      const request = new Request("https://objects.internal/storage", {
        method: "POST",
        headers: { [STORAGE_HEADER]: "ops", "content-type": "application/json" },
        body: JSON.stringify(wire),
        ...(signal ? { signal } : {}),
      });
      return this.#object(home).endpoint(request);
    };
  }

  /** One protocol request's results, sent straight to an object's endpoint. */
  async send(home: Home, ops: WireRequest["ops"]): Promise<unknown[]> {
    const response = await this.transport(home)({ namespace: NAMESPACE, ops });
    return (await response.json()) as unknown[];
  }

  /** The namespace's records in the object's database, read with SQL. */
  records(home: Home): Record<string, string> {
    const rows = this.#rows(home, "SELECT key, value FROM records WHERE key >= ? AND key < ? ORDER BY key");
    return Object.fromEntries(rows.map((row) => [strip(row.key), String(row.value)]));
  }

  /** The namespace's logs in the object's database with their lines, read with SQL. */
  logs(home: Home): Record<string, string[]> {
    const logs: Record<string, string[]> = {};
    for (const row of this.#rows(home, "SELECT log AS key, line FROM logs WHERE log >= ? AND log < ? ORDER BY log, idx")) {
      (logs[strip(row.key)] ??= []).push(String(row.line));
    }
    return logs;
  }

  /** The namespace's lease keys and owners in the object's database. */
  leases(home: Home): Record<string, string> {
    const rows = this.#rows(home, "SELECT key, owner FROM leases WHERE key >= ? AND key < ? ORDER BY key");
    return Object.fromEntries(rows.map((row) => [strip(row.key), String(row.owner)]));
  }

  async close(): Promise<void> {
    await Promise.all(this.#opened.map((driver) => driver.close()));
    for (const object of this.#objects.values()) object.db.close();
  }

  #object(home: Home): ObjectModel {
    let object = this.#objects.get(homeName(home));
    if (!object) this.#objects.set(homeName(home), (object = model(new DatabaseSync(":memory:"), () => this.local(home))));
    return object;
  }

  #rows(home: Home, query: string): Array<Record<string, unknown> & { key: unknown }> {
    this.local(home); // creates the tables
    return this.#object(home).db.prepare(query).all(`${NAMESPACE}/`, `${NAMESPACE}/\u007f`) as Array<Record<string, unknown> & { key: unknown }>;
  }
}

function model(db: DatabaseSync, driver: () => DurableObjectStorageDriver): ObjectModel {
  return { db, sql: nodeSqlStorage(db), drivers: new Map(), endpoint: storageEndpoint(() => driver()) };
}

const strip = (key: unknown): string => String(key).slice(NAMESPACE.length + 1);
