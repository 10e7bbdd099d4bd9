/**
 * `agent-serve chat [dir]` and `agent-serve resume <sessionId>`: an interactive terminal chat over
 * one session. Replies stream as they arrive; tool calls, reasoning and approvals show inline
 * (an approval asks "approve? [y/N]" and posts the decision; Ctrl-C there denies that one call). `/exit` or Ctrl-D quits; Ctrl-C
 * during a reply stops the turn.
 * @module
 */
import { ApiError, sessionPath } from "./api-client.ts";
import type { ApiClient } from "./api-client.ts";
import { createChatRenderer } from "./chat-renderer.ts";
import { followEvents, isSettled, readEvents } from "./events.ts";
import type { CliEvent } from "./events.ts";
import { CommandError, EXIT_OK, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createLineReader } from "./line-reader.ts";
import type { LineReader } from "./line-reader.ts";
import { createProgress } from "./progress.ts";
import { sessionSummary } from "./session-summary.ts";
import type { Progress } from "./progress.ts";
import { brief } from "./render-event.ts";
import type { SessionSummary } from "../src/entries/events.ts";
import { createStyle } from "./style.ts";
import type { Style } from "./style.ts";
import { openTarget } from "./target.ts";
import type { Target, TargetArgs } from "./target.ts";
import { type RenderMarkdown, createTerminalMarkdown } from "./terminal-markdown.ts";

export interface ChatArgs extends TargetArgs {
  /** Continue this session instead of starting a new one. */
  resume?: string;
}

export async function chatCommand(args: ChatArgs, io: CliIo): Promise<number> {
  const style = createStyle(io.stdout, io.env);
  const progress = createProgress(io);
  const target = await openTarget(args, io, progress);
  const reader = createLineReader(io);
  const chat = new Chat(target, io, style, reader, progress);
  reader.onInterrupt(() => chat.interrupt());
  try {
    const where = target.kind === "local" ? `local server at ${target.client.baseUrl}` : target.client.baseUrl;
    io.stdout.write(`${style.bold(`chat with ${target.agent.name}`)} ${style.dim(`(${where})`)}\n`);
    if (args.resume !== undefined) await chat.resume(args.resume);
    else io.stdout.write(style.dim("the session starts with your first message; /exit or Ctrl-D quits\n"));
    await chat.loop();
    if (chat.sessionId !== undefined) {
      const where = target.kind === "remote" ? ` --url ${target.client.baseUrl}` : localFlags(args);
      io.stdout.write(style.dim(`resume with: agent-serve resume ${chat.sessionId}${where}\n`));
    }
    return EXIT_OK;
  } finally {
    reader.close();
    await target.close();
  }
}

// --- internals ---

/** The flags that reach the same local sessions again. */
function localFlags(args: ChatArgs): string {
  const flags = [
    args.dir === undefined ? "" : ` --dir ${quote(args.dir)}`,
    args.slug === undefined ? "" : ` --slug ${quote(args.slug)}`,
    args.mode === "single" ? " --mode single" : "",
    args.stateRoot === undefined ? "" : ` --state-root ${quote(args.stateRoot)}`,
    args.storage === undefined ? "" : ` --storage ${quote(args.storage)}`,
  ];
  return flags.join("");
}

function quote(value: string): string {
  return /^[\w./@:=-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/** The answer a Ctrl-C gives to an approval question; no typed line can contain a control character. */
const DENIED_BY_INTERRUPT = "\u0003";

function terminalWidth(stream: object): number {
  const columns = (stream as { columns?: unknown }).columns;
  return typeof columns === "number" && columns > 20 ? Math.min(columns, 120) : 80;
}

class Chat {
  sessionId: string | undefined;
  #token: string | undefined;
  #nextIndex = 0;
  #turn: AbortController | undefined;
  /** From sending a message until the session is idle again. */
  #busy = false;
  /** Ctrl-C came before the stream was followed: stop as soon as there is a turn to stop. */
  #stopRequested = false;
  #markdown: RenderMarkdown | undefined;
  /** An approval question is on screen: Ctrl-C denies that call (once) instead of stopping the turn. */
  #asking = false;
  readonly #client: ApiClient;
  readonly #target: Target;
  readonly #io: CliIo;
  readonly #style: Style;
  readonly #reader: LineReader;
  readonly #progress: Progress;

  constructor(target: Target, io: CliIo, style: Style, reader: LineReader, progress: Progress) {
    this.#target = target;
    this.#client = target.client;
    this.#io = io;
    this.#style = style;
    this.#reader = reader;
    this.#progress = progress;
  }

  async resume(sessionId: string): Promise<void> {
    const summary = await this.#summary(sessionId);
    if (!summary) throw new CommandError(`no session ${sessionId} among this agent's sessions (agent-serve sessions lists them)`);
    const events = await readEvents(this.#client, sessionId);
    this.sessionId = sessionId;
    this.#token = summary.continuationToken;
    this.#nextIndex = events.length;
    const out = this.#io.stdout;
    out.write(this.#style.dim(`session ${sessionId} (resumed: ${summary.turnCount} turn${summary.turnCount === 1 ? "" : "s"}, ${summary.status}); /exit or Ctrl-D quits\n`));
    for (const event of events.slice(-40)) {
      if (event.type === "message.received") out.write(this.#style.dim(`you› ${brief(event.data.text, 300)}\n`));
      else if (event.type === "message.completed" && event.data.text) out.write(this.#style.dim(`${this.#target.agent.slug}› ${brief(event.data.text, 300)}\n`));
    }
    // A turn still in flight: show the rest of it before the first prompt.
    if (summary.status === "running" || summary.status === "queued") await this.#whileBusy(() => this.#follow());
  }

  async loop(): Promise<void> {
    for (;;) {
      const line = await this.#reader.next(this.#style.green("you› "));
      if (line === undefined) {
        // Ctrl-D leaves the cursor after the prompt.
        if (this.#reader.terminal) this.#io.stdout.write("\n");
        return;
      }
      const message = line.trim();
      if (!message) continue;
      if (message === "/exit" || message === "/quit") return;
      try {
        await this.#whileBusy(async () => {
          await this.#send(message);
          await this.#follow(message);
        });
      } catch (error) {
        // One failed exchange (session busy elsewhere, a dropped stream) does not end the chat.
        if (!(error instanceof CommandError)) throw error;
        this.#io.stderr.write(`agent-serve: ${error.message}\n`);
      }
    }
  }

  async #whileBusy(work: () => Promise<void>): Promise<void> {
    this.#busy = true;
    try {
      await work();
    } finally {
      this.#busy = false;
      this.#stopRequested = false;
    }
  }

  /** Ctrl-C: stops the turn in flight; at the prompt it ends the chat. */
  interrupt(): void {
    if (this.#asking && this.#reader.cancelPending(DENIED_BY_INTERRUPT)) return;
    if (this.#busy) {
      this.#progress.stop();
      this.#io.stdout.write(this.#style.dim("\n(stopping the turn)\n"));
      if (this.#turn) void this.#stopTurn();
      else this.#stopRequested = true;
    } else {
      this.#reader.close();
    }
  }

  async #stopTurn(): Promise<void> {
    if (this.sessionId === undefined) return;
    try {
      await this.#client.postJson(sessionPath(this.sessionId, "/stop"), {});
    } catch {
      // The turn may have just ended; closing the local host drains whatever is left.
    }
  }

  async #send(message: string): Promise<void> {
    if (this.sessionId === undefined) {
      const created = await this.#client.postJson<{ sessionId: string; continuationToken: string }>("/v1/session", { message });
      this.sessionId = created.sessionId;
      this.#token = created.continuationToken;
      this.#io.stdout.write(this.#style.dim(`session ${created.sessionId}\n`));
      return;
    }
    const id = this.sessionId;
    const followUp = () => this.#client.postJson<{ continuationToken: string }>(sessionPath(id), { continuationToken: this.#token, message });
    try {
      this.#token = (await followUp()).continuationToken;
    } catch (error) {
      // Someone else continued the session (another terminal, the playground): take the current token.
      if (!(error instanceof ApiError) || error.code !== "stale_continuation_token") throw error;
      this.#token = (await this.#summary(id))?.continuationToken;
      this.#token = (await followUp()).continuationToken;
    }
  }

  /**
   * Follows the stream from the next unseen event until the session is idle again. With `sent`,
   * idleness only counts once this message was received: turns someone else started in between
   * (another terminal, the playground) settle before ours runs.
   */
  async #follow(sent?: string): Promise<void> {
    const sessionId = this.sessionId;
    if (sessionId === undefined) return;
    const turn = new AbortController();
    this.#turn = turn;
    if (this.#stopRequested) void this.#stopTurn();
    const spinning = this.#io.stderr.isTTY === true;
    if (spinning) this.#progress.start("waiting for the reply");
    const renderer = createChatRenderer(this.#io.stdout, this.#style, {
      agentLabel: this.#target.agent.slug,
      beforeWrite: () => this.#progress.stop(),
      // Markdown needs the escapes a terminal understands; pipes get the reply as written.
      ...(this.#style.enabled ? { markdown: (this.#markdown ??= createTerminalMarkdown({ width: terminalWidth(this.#io.stdout) })) } : {}),
    });
    let settled = false;
    try {
      let ours = sent === undefined;
      for await (const event of followEvents(this.#client, sessionId, this.#nextIndex, turn.signal)) {
        this.#nextIndex = event.index + 1;
        if (event.type === "message.received" && event.data["text"] === sent) ours = true;
        if (event.type === "action.approval_requested") {
          this.#progress.stop();
          renderer.endLine();
          await this.#askApproval(sessionId, event);
          continue;
        }
        renderer.render(event);
        if (ours && isSettled(event)) {
          settled = true;
          return;
        }
      }
      throw new CommandError("the event stream ended before the turn finished");
    } finally {
      this.#progress.stop();
      renderer.endLine();
      this.#turn = undefined;
      turn.abort();
      // Leaving early (an error): do not leave the turn running behind us.
      if (!settled) await this.#stopTurn();
    }
  }

  async #askApproval(sessionId: string, event: CliEvent): Promise<void> {
    const { callId, toolName, input } = event.data;
    const question = `${this.#style.yellow("?")} ${String(toolName)} ${brief(input, 160)} — approve? [y/N] `;
    // On a pipe there is no prompt: say what is asked before reading the answer.
    if (!this.#reader.terminal) this.#io.stdout.write(`${question}\n`);
    this.#asking = true;
    const answer = await this.#reader.next(question).finally(() => (this.#asking = false));
    const decision = /^y(es)?$/i.test(answer?.trim() ?? "") ? "approve" : "deny";
    if (answer === undefined) this.#io.stdout.write(this.#style.dim("(no answer: denying)\n"));
    if (answer === DENIED_BY_INTERRUPT) this.#io.stdout.write(this.#style.dim("\n(Ctrl-C: denied)\n"));
    try {
      await this.#client.postJson(sessionPath(sessionId, `/approvals/${encodeURIComponent(String(callId))}`), { decision });
    } catch (error) {
      this.#io.stderr.write(`agent-serve: could not ${decision} ${String(callId)}: ${errorMessage(error)}\n`);
    }
  }

  async #summary(sessionId: string): Promise<SessionSummary | undefined> {
    return (await sessionSummary(this.#client, sessionId)) ?? undefined;
  }
}
