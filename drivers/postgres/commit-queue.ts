/**
 * Group commit for the Postgres driver (docs/design/storage.md, "Postgres driver"): a commit made
 * while another is in flight waits, and the commits that waited go together as one call of
 * `commit_group`, one transaction and one WAL flush for all of them. Order is kept: a group is
 * sent the moment anything else is sent (a read, a lease, a log deletion), so every command still
 * reaches the connection after every commit made before it.
 * @module
 */
import type { CommitArgs } from "./commit.ts";

/** Commits per group: bounds one statement's size and the time its locks are held. */
const MAX_GROUP = 128;

/** One commit's outcome from a group: its first indexes, or the error it raised. */
export type Outcome = { firsts: number[] } | { error: unknown };

interface Waiting {
  args: CommitArgs;
  settle: (outcome: Outcome) => void;
}

export class CommitQueue {
  readonly #send: (group: CommitArgs[]) => Promise<Outcome[]>;
  #inFlight = 0;
  #waiting: Waiting[] = [];
  /** The last group's settling: the next one settles after it. */
  #settled: Promise<void> = Promise.resolve();

  /** `send` sends one group, in the order it is called, and answers one outcome per commit. */
  constructor(send: (group: CommitArgs[]) => Promise<Outcome[]>) {
    this.#send = send;
  }

  /** Sends `args` now if nothing is in flight, else with the next group. */
  add(args: CommitArgs): Promise<Outcome> {
    return new Promise((settle) => {
      this.#waiting.push({ args, settle });
      if (this.#inFlight === 0 || this.#waiting.length >= MAX_GROUP) this.flush();
    });
  }

  /** Sends what waits, now: called before any other command, so it goes after them in order. */
  flush(): void {
    if (this.#waiting.length === 0) return;
    const group = this.#waiting;
    this.#waiting = [];
    this.#inFlight++;
    const sent = this.#send(group.map((item) => item.args));
    // Settled strictly in the order sent, whatever path each answer took: a caller hands a
    // commit's lines to this process's followers when it resolves, and a follower takes only
    // lines that continue from where it stands.
    const settled = this.#settled.then(() =>
      sent.then(
        (outcomes) => group.forEach((item, i) => item.settle(outcomes[i] ?? { error: new Error("[agent-serve] [storage] no outcome for a commit of the group") })),
        (error: unknown) => group.forEach((item) => item.settle({ error })),
      ),
    );
    this.#settled = settled;
    void settled.finally(() => {
      this.#inFlight--;
      if (this.#inFlight === 0) this.flush();
    });
  }
}
