/**
 * The host's side of a cloud turn (docs/design/cloud-runtime.md): the turn request POSTed to a
 * runner, and the runner's NDJSON lines handed to the turn's writer in the order they came, with
 * `agent.bound` first. A runner that refuses the connection is skipped for the next; one that goes
 * quiet for `leaseMs` or drops the connection mid-turn fails the turn.
 * @module
 */
import { errorMessage } from "../../base/errors.ts";
import type { EventDraft, EventType } from "../../base/events/vocabulary.ts";
import type { ConversationMessage } from "../../base/ports/model.ts";
import type { RecordWrite } from "../../base/storage/types.ts";
import type { RemoteLoop } from "../../engine/turns/run-turn.ts";
import type { RunnerPool } from "./runner-pool.ts";
import { RUNNER_TURNS_PATH, type RunnerLine, type TurnRequest } from "./protocol.ts";
import { signRunnerRequest } from "./signing.ts";

/** The events a runner may record: what the agent loop and the harness tools record locally. */
const RUNNER_EVENTS = new Set<EventType>([
  "step.started",
  "step.completed",
  "message.appended",
  "message.completed",
  "reasoning.appended",
  "reasoning.completed",
  "actions.requested",
  "action.result",
  "subagent.called",
  "subagent.completed",
]);

/** What the host keeps of a running cloud turn, committed with each line's events. */
export interface CloudTurnState {
  runner: string;
  turnId: string;
  /** The last event line whose events are committed. */
  seq: number;
}

export interface RemoteTurnOptions {
  /** Reads the turn's state (a reattach), and makes the write that commits it with a line's events. */
  state: { read(): Promise<CloudTurnState | undefined>; write(state: CloudTurnState): RecordWrite };
  pool: RunnerPool;
  secret: string;
  /** No line from the runner for this long fails the turn. */
  leaseMs: number;
  /** The request, less what the loop input supplies. */
  request: Omit<TurnRequest, "messages" | "maxSteps" | "model">;
  model: { id: string; params: Record<string, string> };
  /** Called with each line's sequence number once its events are written. */
  onWritten?: (seq: number) => void;
  /** Called with the runner that took the turn and its id (which changes when it restarts). */
  onBound?: (runner: string, runnerId: string) => void;
}

/** The remote loop of one turn. */
export function remoteLoop(options: RemoteTurnOptions): RemoteLoop {
  return async (input) => {
    if (input.resume) throw new Error("a cloud turn parked before a host restart cannot be resumed: send the message again");
    const request: TurnRequest = { ...options.request, model: { ...options.model, params: input.params }, messages: [...input.messages], maxSteps: input.maxSteps };
    const turnId = request.turnId;
    let from = 0;
    let connection: { response: Response; runner: string; abort: AbortController; release(): void };
    if (input.reattach) {
      const state = await options.state.read();
      if (state?.turnId !== turnId) throw new Error("the host restarted before the runner took this turn");
      from = state.seq;
      options.onWritten?.(from);
      connection = await reattach(options, state, input.signal);
    } else {
      connection = await dispatch(options, JSON.stringify(request), input.signal);
    }
    const { response, runner, abort, release } = connection;
    // A stop (or preempt) ends the turn on the runner too, not only this host's reading of it.
    const cancel = (): void => void cancelOnRunner(options.secret, runner, turnId);
    input.signal.addEventListener("abort", cancel, { once: true });
    const lost = (why: string): Error => new Error(`cloud runner ${runner} lost: ${why}`);
    let writes: Promise<unknown> = Promise.resolve();
    let failure: unknown;
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    let quiet = false;
    const arm = (): void => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        quiet = true;
        abort.abort();
      }, options.leaseMs);
    };
    const write = (drafts: EventDraft[], seq: number, conversation?: ConversationMessage[]): void => {
      const records = [options.state.write({ runner, turnId, seq })];
      // Not awaited one by one (the writer commits one session's appends in the order they are
      // handed over, and batches what arrives together); the last one settles after all others.
      writes = input
        .emit(drafts, { records, ...(conversation ? { conversation } : {}) })
        .then(() => options.onWritten?.(seq))
        .catch((error: unknown) => {
          failure ??= error;
        });
    };
    try {
      arm();
      for await (const line of ndjsonLines(response.body!)) {
        arm();
        if (failure) throw failure;
        switch (line.kind) {
          case "bound":
            write([{ type: "agent.bound", turnId, data: { agentId: line.agentId, url: line.url, runner } }], 0);
            options.onBound?.(runner, line.agentId.split(":")[0] ?? "");
            break;
          case "emit": {
            // A line already committed before a restart is not written again.
            if (line.seq <= from) break;
            const drafts = line.events.filter((draft) => RUNNER_EVENTS.has(draft.type)).map((draft) => ({ ...draft, turnId }) as EventDraft);
            write(drafts, line.seq, line.conversation);
            break;
          }
          case "end":
            await writes;
            if (failure) throw failure;
            if (line.outcome.status === "failed") throw new Error(line.outcome.message);
            return { text: line.outcome.text, usage: line.outcome.usage, model: line.outcome.model };
        }
      }
      throw lost("the connection ended before the turn did");
    } catch (error) {
      await writes;
      if (input.signal.aborted) throw error;
      if (quiet) {
        // A runner that comes back must not go on with a turn this host has failed.
        cancel();
        throw lost(`no word for ${options.leaseMs} ms`);
      }
      if (failure) throw failure;
      if (error instanceof Error && error.message.startsWith("cloud runner ")) throw error;
      // The model's or a tool's failure on the runner is the turn's, word for word.
      if (error instanceof Error && !isNetworkError(error)) throw error;
      throw lost(errorMessage(error));
    } finally {
      clearTimeout(watchdog);
      input.signal.removeEventListener("abort", cancel);
      release();
      abort.abort();
    }
  };
}

// --- internals ---

/** The first runner that takes the turn; the ones that refuse are marked down. */
async function dispatch(options: RemoteTurnOptions, body: string, signal: AbortSignal): Promise<{ response: Response; runner: string; abort: AbortController; release(): void }> {
  const order = options.pool.order();
  if (order.length === 0) throw new Error("no cloud runner configured: start one with agent-serve runner and pass its URL with --runner");
  const problems: string[] = [];
  for (const runner of order) {
    const abort = new AbortController();
    const onAbort = (): void => abort.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const release = (): void => signal.removeEventListener("abort", onAbort);
    try {
      const response = await fetch(`${runner}${RUNNER_TURNS_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: await signRunnerRequest(options.secret, "POST", RUNNER_TURNS_PATH, body) },
        body,
        signal: abort.signal,
      });
      // The turn's signal (stop, preempt) keeps aborting the request while its body is read.
      if (response.ok && response.body) return { response, runner, abort, release };
      release();
      const text = await response.text().catch(() => "");
      problems.push(`${runner}: HTTP ${response.status} ${refusal(text)}`);
    } catch (error) {
      release();
      if (signal.aborted) throw error;
      problems.push(`${runner}: ${errorMessage(error)}`);
    }
    options.pool.markDown(runner);
  }
  throw new Error(`no cloud runner took the turn (${problems.join("; ")})`);
}

/** Picks up a turn a previous process of this host dispatched, after its last committed line. */
async function reattach(
  options: RemoteTurnOptions,
  state: CloudTurnState,
  signal: AbortSignal,
): Promise<{ response: Response; runner: string; abort: AbortController; release(): void }> {
  const path = `${RUNNER_TURNS_PATH}/${state.turnId}/attach`;
  const body = JSON.stringify({ after: state.seq, ...(options.request.tools ? { credential: options.request.tools.credential } : {}) });
  const abort = new AbortController();
  const onAbort = (): void => abort.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  const release = (): void => signal.removeEventListener("abort", onAbort);
  let response: Response;
  try {
    response = await fetch(`${state.runner}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: await signRunnerRequest(options.secret, "POST", path, body) },
      body,
      signal: abort.signal,
    });
  } catch (error) {
    release();
    if (signal.aborted) throw error;
    throw new Error(`cloud runner ${state.runner} lost: cannot reattach after a host restart: ${errorMessage(error)}`);
  }
  if (!response.ok || !response.body) {
    release();
    throw new Error(`cloud runner ${state.runner} lost: cannot reattach after a host restart: ${refusal(await response.text().catch(() => ""))}`);
  }
  return { response, runner: state.runner, abort, release };
}

/** Asks the runner to stop the turn (best effort: a runner that is gone has stopped it already). */
async function cancelOnRunner(secret: string, runner: string, turnId: string): Promise<void> {
  const path = `${RUNNER_TURNS_PATH}/${turnId}`;
  await fetch(`${runner}${path}`, { method: "DELETE", headers: { authorization: await signRunnerRequest(secret, "DELETE", path, "") }, signal: AbortSignal.timeout(5000) })
    .then((response) => response.body?.cancel())
    .catch(() => {});
}

function refusal(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } };
    if (parsed.error?.message) return parsed.error.message;
  } catch {
    // Not the runner's envelope.
  }
  return text.slice(0, 200);
}

function isNetworkError(error: Error): boolean {
  return error.name === "TypeError" || error.name === "AbortError" || /terminated|socket|ECONNRESET|other side closed/i.test(error.message);
}

async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<RunnerLine> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const text = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (text) yield JSON.parse(text) as RunnerLine;
    }
  }
}
