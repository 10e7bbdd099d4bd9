/**
 * `agent-serve github manifest` prints a GitHub App manifest for the GitHub pack (webhook URL,
 * permissions, events), its webhook URL from `--url` or the last deployment; `agent-serve github
 * redeliver <file>` signs a saved payload with `GITHUB_WEBHOOK_SECRET` and posts it to a running
 * server's webhook route, for local testing (docs/guide/cli.md "Channel helpers",
 * docs/guide/github.md).
 * @module
 */
import { createHmac, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { AgentUrlArgs } from "./channels/agent-url.ts";
import { channelUrl } from "./channels/agent-url.ts";
import { githubManifest } from "./channels/github-manifest.ts";
import { CommandError, EXIT_FAILURE, EXIT_OK, UsageError, errorMessage } from "./io.ts";
import type { CliIo } from "./io.ts";

export interface GitHubArgs extends AgentUrlArgs {
  action: string;
  /** `redeliver`: the payload file. */
  file?: string;
  /** The channel's id: its file name under bot/channels/. @default "github" */
  channel?: string;
  /** `manifest`: the app's name. @default "agent" */
  name?: string;
  /** `redeliver`: the `X-GitHub-Event`. @default inferred from the payload */
  event?: string;
  /** `redeliver`: the `X-GitHub-Delivery`. @default a new UUID */
  delivery?: string;
  json?: boolean;
}

export async function githubCommand(args: GitHubArgs, io: CliIo): Promise<number> {
  const channel = args.channel ?? "github";
  if (args.action === "manifest") {
    if (args.file !== undefined) throw new UsageError("github manifest takes no file (github redeliver <file> does)");
    const webhookUrl = channelUrl(args, channel, "/webhook", io);
    const manifest = githubManifest(args.name ?? "agent", webhookUrl, new URL(webhookUrl).origin);
    io.stdout.write(`${JSON.stringify(args.json ? { ok: true, webhookUrl, manifest } : manifest, null, args.json ? undefined : 2)}\n`);
    if (!args.json) io.stderr.write("register it through GitHub's app-manifest flow (docs/guide/github.md), then set GITHUB_WEBHOOK_SECRET and GITHUB_TOKEN from the new app\n");
    return EXIT_OK;
  }
  if (args.action === "redeliver") return redeliver(args, channel, io);
  throw new UsageError(`github has two actions, manifest and redeliver (got "${args.action}")`);
}

// --- internals ---

async function redeliver(args: GitHubArgs, channel: string, io: CliIo): Promise<number> {
  if (args.file === undefined) throw new UsageError("github redeliver needs the payload file: agent-serve github redeliver <file.json> --url <agent URL>");
  const path = resolve(io.cwd, args.file);
  let body: string;
  let payload: unknown;
  try {
    body = await readFile(path, "utf8");
    payload = JSON.parse(body);
  } catch (error) {
    throw new CommandError(`cannot read ${path} as a JSON payload: ${errorMessage(error)}`);
  }
  const event = args.event ?? inferEvent(payload);
  if (!event) throw new UsageError(`cannot tell the event of ${args.file}: pass --event (e.g. pull_request, issues, issue_comment)`);
  const url = channelUrl(args, channel, "/webhook", io);
  const secret = io.env.GITHUB_WEBHOOK_SECRET;
  const delivery = args.delivery ?? randomUUID();
  const headers: Record<string, string> = { "content-type": "application/json", "x-github-event": event, "x-github-delivery": delivery, "user-agent": "agent-serve-redeliver" };
  // Unsigned only works against a --dev server from loopback (docs/guide/github.md).
  if (secret) headers["x-hub-signature-256"] = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  let response: Response;
  try {
    response = await fetch(url, { method: "POST", headers, body });
  } catch (error) {
    throw new CommandError(`cannot reach ${url.split("?")[0]}: ${error instanceof Error && error.cause instanceof Error ? error.cause.message : errorMessage(error)} (is the server running?)`);
  }
  const text = await response.text();
  let answer: unknown = text;
  try {
    answer = JSON.parse(text);
  } catch {
    // keep the text
  }
  const ok = response.ok;
  if (args.json) io.stdout.write(`${JSON.stringify({ ok, status: response.status, event, delivery, signed: Boolean(secret), response: answer })}\n`);
  else io.stdout.write(`${event} delivery ${delivery} (${secret ? "signed" : "unsigned"}) → ${response.status} ${text}\n`);
  if (!ok && response.status === 401) {
    io.stderr.write(secret ? "agent-serve: the server rejected the signature: set GITHUB_WEBHOOK_SECRET to the secret the server has\n" : "agent-serve: unsigned deliveries are admitted only by a --dev server from loopback: set GITHUB_WEBHOOK_SECRET to the server's secret\n");
  }
  return ok ? EXIT_OK : EXIT_FAILURE;
}

function inferEvent(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null) return undefined;
  const p = payload as Record<string, unknown>;
  if ("zen" in p && "hook" in p) return "ping";
  if ("comment" in p && "issue" in p) return "issue_comment";
  if ("pull_request" in p) return "pull_request";
  if ("issue" in p) return "issues";
  return undefined;
}
