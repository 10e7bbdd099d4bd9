/**
 * `agent-serve call <tool> --input '{...}' [--session <id>]`: `POST /v1/tools/:toolName`. Exits
 * non-zero unless the answer is an HTTP success with `ok: true` and `isError` not true, and
 * prints why (docs/guide/http-api.md "Errors").
 * @module
 */
import { ApiError, isRecord } from "./api-client.ts";
import { EXIT_FAILURE, EXIT_OK, UsageError, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { withTarget } from "./target.ts";
import type { TargetArgs } from "./target.ts";

export interface CallArgs extends TargetArgs {
  toolName: string;
  /** The tool input as JSON text. @default "{}" */
  input?: string;
  /** Run the call inside this session (recorded in its event stream). */
  sessionId?: string;
  /** Print the whole response body as JSON. @default false */
  json?: boolean;
}

export async function callCommand(args: CallArgs, io: CliIo): Promise<number> {
  let input: unknown;
  try {
    input = JSON.parse(args.input ?? "{}");
  } catch (error) {
    throw new UsageError(`--input must be JSON: ${errorMessage(error)}`);
  }
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client }) => {
    const path = `/v1/tools/${encodeURIComponent(args.toolName)}`;
    let body: unknown;
    try {
      body = await client.postJson(path, { input, ...(args.sessionId === undefined ? {} : { sessionId: args.sessionId }) });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (args.json) io.stdout.write(`${JSON.stringify(error.body)}\n`);
      const tools = isRecord(error.body) && Array.isArray(error.body.tools) ? ` (tools: ${error.body.tools.join(", ") || "none"})` : "";
      io.stderr.write(`agent-serve: call ${args.toolName} failed: ${error.message}${tools}\n`);
      return EXIT_FAILURE;
    }
    if (args.json) io.stdout.write(`${JSON.stringify(body)}\n`);
    if (!isRecord(body) || body.ok !== true) {
      const why = isRecord(body) ? String(body.message ?? body.error ?? "ok is not true") : "the answer is not a JSON object";
      io.stderr.write(`agent-serve: call ${args.toolName} failed: ${why}\n`);
      return EXIT_FAILURE;
    }
    if (body.isError === true) {
      io.stderr.write(`agent-serve: ${args.toolName} returned an error: ${printable(body.result)}\n`);
      return EXIT_FAILURE;
    }
    if (!args.json) io.stdout.write(`${printable(body.result)}\n`);
    return EXIT_OK;
  });
}

// --- internals ---

/** Text results as they are, anything else as indented JSON. */
function printable(result: unknown): string {
  return typeof result === "string" ? result : (JSON.stringify(result, null, 2) ?? "null");
}
