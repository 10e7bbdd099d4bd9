/**
 * One connection to Redis through ioredis, loaded on first use, that sends commands in call order
 * and turns connection trouble into `StorageUnavailableError` (docs/design/storage.md, "Redis
 * driver").
 * @module
 */
import type { Redis, RedisOptions } from "ioredis";
import { StorageUnavailableError } from "../../src/base/storage/errors.ts";

/** Replies that mean "this Redis cannot take the command now", not "the command is wrong". */
const UNAVAILABLE_REPLIES = /^(OOM|READONLY|MISCONF|LOADING|BUSY|MASTERDOWN|NOREPLICAS|CLUSTERDOWN|TRYAGAIN|NOAUTH|WRONGPASS)\b/;

/**
 * ioredis settings that keep the port's promises:
 * - a command whose reply was lost with the connection is rejected, never sent again
 *   (`autoResendUnfulfilledCommands: false`, and `maxRetriesPerRequest: 0` so it is rejected at
 *   once rather than dropped): resending an append could store it twice;
 * - commands made before the first connection wait for it in order (the offline queue); once
 *   connected, commands made while the connection is down fail at once (`send` below), so a
 *   request gets 503 `storage_unavailable` instead of hanging, while ioredis reconnects.
 */
const CLIENT_DEFAULTS: RedisOptions = {
  autoResendUnfulfilledCommands: false,
  maxRetriesPerRequest: 0,
  enableOfflineQueue: true,
  connectTimeout: 5_000,
  disableClientInfo: true,
  retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
};

export interface ConnectionTarget {
  /** `redis://[user:pass@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** Extra ioredis options (tests: `connectTimeout`). */
  options?: RedisOptions;
}

type Command<T> = (client: Redis) => Promise<T>;

/** Commands waiting for the client module to load, kept in call order. */
interface Waiting {
  run: (client: Redis) => void;
  fail: (error: unknown) => void;
}

export class RedisConnection {
  readonly #name: string;
  /** The client, once its module is loaded and it is created. */
  readonly loaded: Promise<Redis>;
  #client: Redis | undefined;
  #waiting: Waiting[] | undefined = [];
  #connectedOnce = false;
  #lastError: unknown;
  #closed = false;

  /** A connection to `target`; `name` says which Redis in error messages. */
  static open(target: ConnectionTarget, name: string): RedisConnection {
    return new RedisConnection(loadClient(target), name);
  }

  private constructor(loading: Promise<Redis>, name: string) {
    this.#name = name;
    this.loaded = loading;
    loading.then(
      (client) => this.#adopt(client),
      (error: unknown) => {
        const waiting = this.#waiting ?? [];
        this.#waiting = undefined;
        this.#lastError = error;
        for (const item of waiting) item.fail(error);
      },
    );
  }

  /** A second connection with the same settings (the followers' blocking reads use one). */
  duplicate(): RedisConnection {
    return new RedisConnection(this.loaded.then((client) => client.duplicate()), this.#name);
  }

  /**
   * Sends one command (or several, issued synchronously by `command`) after every command sent
   * before it: on one connection Redis runs them in that order.
   */
  send<T>(command: Command<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new Error(`[agent-serve] [storage] the redis store is closed`));
    const client = this.#client;
    if (client) return this.#run(client, command);
    if (!this.#waiting) return Promise.reject(unavailable(this.#name, this.#lastError));
    return new Promise<T>((resolve, reject) => {
      this.#waiting!.push({ run: (c) => this.#run(c, command).then(resolve, reject), fail: (error) => reject(unavailable(this.#name, error)) });
    });
  }

  /** Stops reconnecting and closes the socket; `quit` waits for replies to what was sent. */
  async close(how: "quit" | "disconnect"): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    if (!client) return;
    if (how === "quit" && client.status === "ready") {
      await client.quit().catch(() => client.disconnect());
    } else client.disconnect();
  }

  #adopt(client: Redis): void {
    client.on("error", (error: unknown) => (this.#lastError = error));
    client.on("ready", () => (this.#connectedOnce = true));
    if (this.#closed) client.disconnect();
    const waiting = this.#waiting ?? [];
    this.#waiting = undefined;
    this.#client = client;
    for (const item of waiting) item.run(client);
  }

  #run<T>(client: Redis, command: Command<T>): Promise<T> {
    if (this.#connectedOnce && client.status !== "ready") {
      return Promise.reject(unavailable(this.#name, this.#lastError ?? new Error(`connection ${client.status}`)));
    }
    try {
      return command(client).catch((error: unknown) => {
        // "Reached the max retries per request limit" says nothing: the socket's error does.
        const reason = error instanceof Error && error.name === "MaxRetriesPerRequestError" && this.#lastError ? this.#lastError : error;
        throw redisError(this.#name, reason);
      });
    } catch (error) {
      return Promise.reject(redisError(this.#name, error));
    }
  }
}

/** `error` as the port's error: connection trouble and "cannot write now" replies are `StorageUnavailableError`. */
export function redisError(name: string, error: unknown): unknown {
  if (StorageUnavailableError.isError(error) || !(error instanceof Error)) return error;
  if (error.name === "ReplyError" && !UNAVAILABLE_REPLIES.test(error.message)) return error;
  return unavailable(name, error);
}

function unavailable(name: string, cause: unknown): StorageUnavailableError {
  const reason = cause instanceof Error ? cause.message : String(cause ?? "not connected");
  return new StorageUnavailableError(`[agent-serve] [storage] redis ${name} is unavailable: ${reason}`, { cause });
}

async function loadClient(target: ConnectionTarget): Promise<Redis> {
  // Loaded here, not at the top of the module: a host on sqlite never loads the Redis client.
  const { Redis } = await import("ioredis");
  return new Redis(target.url, { ...CLIENT_DEFAULTS, ...target.options });
}
