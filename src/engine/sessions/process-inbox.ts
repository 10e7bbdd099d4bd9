/**
 * Requests between processes sharing one store (docs/design/processes.md "Forwarding"). Every
 * process has an inbox, the storage log `processes/<owner>/inbox`; another process asks it for
 * something (a follow-up or a stop for a session whose turn it runs) by appending a request line,
 * and gets the answer as a reply line in its own inbox. A process learns of new lines through the
 * driver's `follow`, which reaches other processes on a shared store; on a store whose follow is
 * process-local but whose leases are shared (sqlite, several processes on one file) it also
 * polls its inbox's length, only while a line can come: a request names a session whose turn
 * this process runs, a reply answers a request it sent (docs/design/processes.md "Forwarding").
 * Polling starts on {@link ProcessInbox.wake} and stops by itself once idle.
 * @module
 */
import { HTTPError } from "../../base/errors.ts";
import { randomId } from "../../base/ids.ts";
import type { StorageDriver } from "../../base/storage/types.ts";
import { inboxLogName as inboxLog } from "../../base/storage/keys.ts";

/** What a request names: an operation and its JSON arguments. */
export interface InboxRequest {
  op: string;
  args: unknown;
}

export type InboxHandler = (request: InboxRequest) => Promise<unknown>;

type Line =
  | { kind: "request"; id: string; from: string; op: string; args: unknown }
  | { kind: "reply"; id: string; ok: true; value: unknown }
  | { kind: "reply"; id: string; ok: false; status: number; code: string; message: string };

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** How often an inbox is polled where `follow` does not reach other processes. */
const POLL_MS = 200;

/**
 * How long polling goes on after the last turn here ended: a process that read the turn's marker
 * just before it went may still send a request about it.
 */
const POLL_GRACE_MS = 5_000;


export class ProcessInbox {
  readonly #storage: StorageDriver;
  readonly owner: string;
  readonly #handler: InboxHandler;
  readonly #waiting = new Map<string, Waiting>();
  #next = 0;
  #reading: Promise<void> = Promise.resolve();
  #unsubscribe: (() => void) | undefined;
  #poll: ReturnType<typeof setTimeout> | undefined;
  #polls = false;
  #closed = false;
  readonly #hasTurns: () => boolean;
  #lastNeeded = Number.NEGATIVE_INFINITY;

  /** `hasTurns`: whether a turn of this process is open now (requests are about those only). */
  constructor(storage: StorageDriver, owner: string, handler: InboxHandler, hasTurns: () => boolean = () => true) {
    this.#storage = storage;
    this.owner = owner;
    this.#handler = handler;
    this.#hasTurns = hasTurns;
  }

  /** Starts listening; lines appended before `start` are read too. */
  start(): void {
    if (this.#unsubscribe || this.#closed) return;
    const log = inboxLog(this.owner);
    this.#unsubscribe = this.#storage.follow(log, (first, lines) => this.#deliver(first, lines));
    const { follow, sharedLeases } = this.#storage.capabilities;
    this.#polls = follow !== "shared" && sharedLeases;
    this.#catchUp();
  }

  /**
   * Polls again, where polling is how lines arrive: a turn of this process has begun (its caller
   * hears of it from the session events), so requests about it may come.
   */
  wake(): void {
    this.#lastNeeded = Date.now();
    if (!this.#polls || this.#poll !== undefined || this.#closed) return;
    const tick = (): void => {
      if (this.#waiting.size > 0 || this.#hasTurns()) this.#lastNeeded = Date.now();
      // Idle past the grace: the timer stops, so an idle process neither reads nor wakes up.
      if (this.#closed || Date.now() - this.#lastNeeded > POLL_GRACE_MS) {
        this.#poll = undefined;
        return;
      }
      this.#catchUp();
      this.#poll = setTimeout(tick, POLL_MS);
      (this.#poll as { unref?: () => void }).unref?.();
    };
    this.#poll = setTimeout(tick, POLL_MS);
    (this.#poll as { unref?: () => void }).unref?.();
  }

  /**
   * Sends `request` to the process `owner` and resolves with its answer. An `HTTPError` it threw
   * is thrown here with the same status and code; no answer within `timeoutMs` is a 409
   * `session_busy` (the other process is gone or stalled; its lease will expire).
   */
  request(owner: string, request: InboxRequest, timeoutMs: number): Promise<unknown> {
    const id = randomId(16);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new HTTPError({ status: 409, code: "session_busy", message: "the process running this session's turn did not answer in time" }));
      }, timeoutMs);
      this.#waiting.set(id, { resolve, reject, timer });
      // The reply comes in this process's own inbox.
      this.wake();
      const line: Line = { kind: "request", id, from: this.owner, op: request.op, args: request.args };
      this.#storage.append(inboxLog(owner), [JSON.stringify(line)]).catch((error: unknown) => {
        clearTimeout(timer);
        this.#waiting.delete(id);
        reject(error);
      });
    });
  }

  /** Stops listening, fails what still waits for an answer, and removes this process's inbox. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe?.();
    clearTimeout(this.#poll);
    for (const [id, waiting] of this.#waiting) {
      clearTimeout(waiting.timer);
      waiting.reject(new HTTPError({ status: 503, code: "shutting_down", message: "the host is shutting down" }));
      this.#waiting.delete(id);
    }
    await this.#reading.catch(() => {});
    await this.#storage.deleteLog(inboxLog(this.owner)).catch(() => {});
  }

  // --- internals ---

  /** Reads what was appended past the last delivered line (polling, and lines before `start`). */
  #catchUp(): void {
    this.#reading = this.#reading.then(async () => {
      if (this.#closed) return;
      const log = inboxLog(this.owner);
      const length = await this.#storage.length(log);
      if (length <= this.#next) return;
      const from = this.#next;
      for await (const lines of this.#storage.read(log, from, length)) this.#deliver(this.#next, lines);
    }).catch(() => {});
  }

  /** Handles lines in index order, each once, whichever of follow and polling brought it. */
  #deliver(first: number, lines: readonly string[]): void {
    if (this.#closed) return;
    if (first > this.#next) {
      this.#catchUp();
      return;
    }
    for (let i = this.#next - first; i < lines.length; i++) {
      this.#next++;
      let line: Line;
      try {
        line = JSON.parse(lines[i]!) as Line;
      } catch {
        continue;
      }
      if (line.kind === "request") void this.#answer(line);
      else this.#settle(line);
    }
  }

  async #answer(line: Extract<Line, { kind: "request" }>): Promise<void> {
    let reply: Line;
    try {
      const value = await this.#handler({ op: line.op, args: line.args });
      reply = { kind: "reply", id: line.id, ok: true, value: value ?? null };
    } catch (error) {
      const http = error instanceof HTTPError ? error : undefined;
      reply = {
        kind: "reply",
        id: line.id,
        ok: false,
        status: http?.status ?? 500,
        code: http?.code ?? "internal_error",
        message: http?.message ?? "the request failed in the process that runs the session",
      };
    }
    await this.#storage.append(inboxLog(line.from), [JSON.stringify(reply)]).catch(() => {});
  }

  #settle(line: Extract<Line, { kind: "reply" }>): void {
    const waiting = this.#waiting.get(line.id);
    if (!waiting) return;
    this.#waiting.delete(line.id);
    clearTimeout(waiting.timer);
    if (line.ok) waiting.resolve(line.value);
    else waiting.reject(new HTTPError({ status: line.status, code: line.code, message: line.message }));
  }
}
