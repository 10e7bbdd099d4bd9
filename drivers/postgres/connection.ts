/**
 * The Postgres driver's connection (docs/design/storage.md, "Postgres driver"): the `postgres`
 * client, loaded on first use; the schema migrated before the first command; every command sent
 * on one connection in call order (Postgres runs a connection's statements in the order sent, so
 * writes apply in call order and a read sees every write made before it); connection trouble
 * turned into `StorageUnavailableError`.
 * @module
 */
import type postgres from "postgres";
import { StorageUnavailableError } from "../../src/base/storage/errors.ts";
import { migrate } from "./schema.ts";

export type Sql = postgres.Sql;
/** What a command hands back: a query not yet sent, so `send` decides when it goes. */
export type Command = (sql: Sql) => { execute(): PromiseLike<unknown> };

export interface ConnectionTarget {
  /** `postgres://[user:pass@]host[:port]/database[?sslmode=…]` */
  url: string;
  /** The schema holding the driver's tables. */
  schema: string;
  /** Further `postgres` client options; the driver's own settings below win where they matter. */
  options?: postgres.Options<Record<string, postgres.PostgresType>>;
}

/**
 * Client settings that keep the port's promises: one connection (`max: 1`) so commands apply in
 * the order sent; a connection attempt that cannot succeed fails within seconds, so a request
 * gets 503 `storage_unavailable` instead of hanging, and attempts after a failure come at most a
 * second apart; server notices stay out of the host's log.
 * The session runs READ COMMITTED whatever the database's or role's default: the commit function
 * is written for it (row locks in one order, a fresh snapshot per statement), and at SERIALIZABLE
 * contended commits would fail and be sent again after commands sent later, out of call order.
 */
const CLIENT_DEFAULTS = {
  max: 1,
  connect_timeout: 5,
  // Seconds before connecting again after a failed attempt: the client's own default grows to
  // 20 s, and commands wait out the delay, so a restarted database would stall every request.
  backoff: (attempt: number) => Math.min(attempt * 0.1, 1),
  idle_timeout: 0,
  // No rotation: a connection replaced while commands are in flight on the old one could run a
  // later command before an earlier one.
  max_lifetime: null,
  onnotice: () => {},
} satisfies postgres.Options<Record<string, postgres.PostgresType>>;
const SESSION_SETTINGS = { application_name: "agent-serve", default_transaction_isolation: "read committed" } as const;

/**
 * SQLSTATEs that say the statement was rolled back because of another transaction, so sending it
 * again cannot apply it twice: serialization failure and deadlock.
 */
const RETRYABLE = new Set(["40001", "40P01"]);
const MAX_RETRIES = 3;

/** SQLSTATE classes and codes that mean "this server cannot take the command now". */
const UNAVAILABLE_STATE = /^(08|53|57P0[1-4]|25006|3D000|28)/;
/** Client-side codes of a connection that failed or was lost. */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

interface Waiting {
  run: (sql: Sql) => void;
  fail: (error: unknown) => void;
}

export class PostgresConnection {
  readonly name: string;
  /** Called before each command is sent (the commit queue sends what waits, to keep the order). */
  beforeSend: (() => void) | undefined;
  readonly #target: ConnectionTarget;
  #sql: Sql | undefined;
  #module: Promise<typeof postgres> | undefined;
  /** Commands made before the schema is ready, in call order; undefined once it is. */
  #waiting: Waiting[] = [];
  #starting = false;
  /** The schema is migrated: commands go straight to the connection. */
  #ready = false;
  #closed = false;

  constructor(target: ConnectionTarget, name: string) {
    this.#target = target;
    this.name = name;
  }

  /**
   * Sends `command` after every command sent before it and resolves with its rows. A statement
   * rolled back by a serialization failure or deadlock is sent again; nothing else is. `write`
   * says whether a lost connection leaves the outcome unknown.
   */
  send<T>(command: Command, write = false): Promise<T> {
    if (this.#closed) return Promise.reject(new Error("[agent-serve] [storage] the postgres store is closed"));
    this.beforeSend?.();
    const run = (sql: Sql) => this.#run<T>(sql, command, 0).catch((error: unknown) => Promise.reject(this.error(error, write)));
    if (this.#ready && this.#sql && !this.#starting) return run(this.#sql);
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ run: (sql) => run(sql).then(resolve, reject), fail: reject });
      this.#start();
    });
  }

  /**
   * A second client with the same settings and one connection of its own (the followers'
   * `LISTEN` uses it); `on` receives its notifications and its closes.
   */
  async duplicate(on: { notify: (channel: string, payload: string) => void; close: () => void }): Promise<Sql> {
    const client = await this.#load();
    // No array types are sent on it, so it skips the type lookup a first connection makes.
    const options = { ...this.#options(), fetch_types: false, onclose: on.close, onnotify: on.notify };
    return client(this.#target.url, options as postgres.Options<Record<string, postgres.PostgresType>>);
  }

  /** Waits for the commands already sent, then closes the connection. */
  async close(): Promise<void> {
    this.#closed = true;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const item of waiting) item.fail(new Error("[agent-serve] [storage] the postgres store is closed"));
    await this.#sql?.end({ timeout: 5 });
  }

  /** The error a failed command is reported as: connection trouble is `StorageUnavailableError`. */
  error(error: unknown, write: boolean): unknown {
    return toStorageError(this.name, error, write);
  }

  #options(): postgres.Options<Record<string, postgres.PostgresType>> {
    const given = this.#target.options;
    return { ...given, ...CLIENT_DEFAULTS, connection: { ...given?.connection, ...SESSION_SETTINGS } };
  }

  #load(): Promise<typeof postgres> {
    // Loaded here, not at the top of the module: a host on sqlite never loads the Postgres client.
    this.#module ??= import("postgres").then((module) => module.default);
    return this.#module;
  }

  /** Loads the client and migrates the schema, then sends what waited, in order. */
  #start(): void {
    if (this.#starting) return;
    this.#starting = true;
    void (async () => {
      try {
        const client = await this.#load();
        this.#sql ??= client(this.#target.url, this.#options());
        await migrate(this.#sql, this.#target.schema);
        this.#ready = true;
      } catch (error) {
        // The next command starts again: the server may be back by then.
        this.#starting = false;
        const waiting = this.#waiting;
        this.#waiting = [];
        for (const item of waiting) item.fail(this.error(error, false));
        return;
      }
      const sql = this.#sql;
      // Commands made while these run join the end of the list and are sent in turn.
      while (this.#waiting.length > 0) {
        const waiting = this.#waiting;
        this.#waiting = [];
        for (const item of waiting) item.run(sql);
      }
      this.#starting = false;
    })();
  }

  async #run<T>(sql: Sql, command: Command, attempt: number): Promise<T> {
    // Sent now, synchronously, so commands reach the connection in call order.
    const query = command(sql).execute() as Promise<T>;
    try {
      return await query;
    } catch (error) {
      if (isPostgresError(error) && RETRYABLE.has(error.code) && attempt < MAX_RETRIES && !this.#closed) {
        return this.#run(sql, command, attempt + 1);
      }
      throw error;
    }
  }
}

// --- internals ---

function isPostgresError(error: unknown): error is Error & { code: string } {
  return error instanceof Error && error.name === "PostgresError";
}

/**
 * `error` as the port's error. A write whose connection was lost after it was sent may have been
 * applied or not; it is reported as unavailable, with that said, and never sent again.
 */
export function toStorageError(name: string, error: unknown, write: boolean): unknown {
  if (StorageUnavailableError.isError(error) || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return error;
  const postgresError = isPostgresError(error);
  if (postgresError ? !UNAVAILABLE_STATE.test(code) : !CONNECTION_CODES.has(code)) return error;
  const lost = code === "CONNECTION_CLOSED" || code === "ECONNRESET" || code === "EPIPE" || (postgresError && code.startsWith("57P"));
  const outcome = write && lost ? " (the write's outcome is unknown; it was not sent again)" : "";
  return new StorageUnavailableError(`[agent-serve] [storage] postgres ${name} is unavailable: ${error.message}${outcome}`, { cause: error });
}
