/**
 * `agent-serve run [dir] --message "..."`: one turn against an ephemeral local server (real HTTP
 * on a free loopback port), printing the final assistant text.
 * @module
 */
import { readNdjson } from "./ndjson.ts";
import { EXIT_FAILURE, EXIT_OK, UsageError, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { listenHost, startHost } from "./start-host.ts";
import type { StartHostOptions } from "./start-host.ts";

export interface RunArgs extends StartHostOptions {
  message: string;
  /** Which mounted agent to talk to when the directory holds several. */
  slug?: string;
  /** @default 300000 */
  timeoutMs?: number;
  /** Print `{sessionId, continuationToken, text, usage}` as JSON instead of the text. @default false */
  json?: boolean;
}

interface StreamEvent {
  type: string;
  index: number;
  data?: Record<string, unknown>;
}

export async function runCommand(args: RunArgs, io: CliIo): Promise<number> {
  const started = await startHost({ ...args, infoTo: "none", recover: false }, io);
  if (!started) return EXIT_FAILURE;
  const { host, projects, mode } = started;
  const mount = args.slug === undefined ? projects[0] : projects.find((p) => p.slug === args.slug);
  if (!mount || (args.slug === undefined && projects.length > 1)) {
    await host.close();
    const slugs = projects.map((p) => p.slug).join(", ");
    throw new UsageError(args.slug === undefined ? `several agents are mounted (${slugs}): pass --slug` : `no agent "${args.slug}" (mounted: ${slugs})`);
  }
  const server = await listenHost(host, { port: 0, hostname: "127.0.0.1", silent: true }, io);
  const base = mode === "single" ? server.url : `${server.url}/${mount.slug}`;
  const timeoutMs = args.timeoutMs ?? 300_000;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
  let sessionId: string | undefined;
  try {
    const created = await postJson(`${base}/v1/session`, { message: args.message }, abort.signal);
    sessionId = String(created.sessionId);
    const outcome = await followTurn(`${base}/v1/session/${encodeURIComponent(sessionId)}/stream`, abort.signal);
    if (outcome.failed !== undefined) {
      io.stderr.write(`agent-serve: turn failed: ${outcome.failed}\n`);
      return EXIT_FAILURE;
    }
    if (args.json) {
      const result = { sessionId, continuationToken: created.continuationToken, text: outcome.text, usage: outcome.usage };
      io.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      io.stdout.write(`${outcome.text}\n`);
    }
    return EXIT_OK;
  } catch (error) {
    const reason = abort.signal.aborted ? abort.signal.reason : error;
    io.stderr.write(`agent-serve: ${errorMessage(reason)}\n`);
    // Stop the turn rather than let close() wait for it to drain.
    if (sessionId !== undefined) await stopSession(`${base}/v1/session/${encodeURIComponent(sessionId)}/stop`);
    return EXIT_FAILURE;
  } finally {
    clearTimeout(timer);
    abort.abort();
    await host.close();
    await server.close(true);
  }
}

// --- internals ---

async function postJson(url: string, body: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  const json = (await response.json()) as Record<string, unknown>; // SAFETY: the host answers JSON objects
  if (!response.ok || json.ok !== true) {
    throw new Error(`POST ${new URL(url).pathname} answered ${response.status}: ${String(json.message ?? json.error)}`);
  }
  return json;
}

async function stopSession(url: string): Promise<void> {
  try {
    await fetch(url, { method: "POST", signal: AbortSignal.timeout(5_000) });
  } catch {
    // Best effort: close() still drains whatever is left.
  }
}

/** Follows the stream until the session waits again; the last final message is the reply. */
async function followTurn(
  url: string,
  signal: AbortSignal,
): Promise<{ text: string; usage?: unknown; failed?: string }> {
  const response = await fetch(url, { signal });
  if (!response.ok || !response.body) throw new Error(`GET ${new URL(url).pathname} answered ${response.status}`);
  let text = "";
  let usage: unknown;
  for await (const line of readNdjson(response.body)) {
    const event = line as StreamEvent; // SAFETY: the host writes event envelopes only
    if (event.type === "message.completed" && event.data?.finishReason !== "tool_call") {
      text = String(event.data?.text ?? "");
    } else if (event.type === "turn.completed") {
      usage = event.data?.usage;
    } else if (event.type === "turn.failed" || event.type === "session.failed") {
      return { text, failed: String(event.data?.message ?? "unknown error") };
    } else if (event.type === "session.waiting" || event.type === "session.completed") {
      return { text, usage };
    }
  }
  throw new Error("the stream ended before the turn finished");
}
