/**
 * `slack check`: the Slack pack's configuration as the server would read it
 * (docs/guide/slack.md "Options"): the bot token through Slack's `auth.test` (at `SLACK_API_URL`,
 * default https://slack.com/api), and the signing secret's shape and, given a running server,
 * whether that server accepts a `url_verification` request signed with it.
 * @module
 */
import { createHmac, randomBytes } from "node:crypto";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface SlackCheckInput {
  token: string | undefined;
  tokenName: string;
  secret: string | undefined;
  secretName: string;
  apiUrl: string;
  /** The channel's events URL on a running server, when one was named. */
  eventsUrl?: string;
}

export async function checkSlack(input: SlackCheckInput): Promise<Check[]> {
  return [await checkToken(input), await checkSecret(input)];
}

/** Slack's v0 request signature (docs/guide/slack.md): HMAC-SHA256 of `v0:<timestamp>:<body>`. */
export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

// --- internals ---

async function checkToken({ token, tokenName, apiUrl }: SlackCheckInput): Promise<Check> {
  const name = "bot token";
  if (!token) return { name, ok: false, detail: `${tokenName} is not set: copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page` };
  if (!token.startsWith("xoxb-")) return { name, ok: false, detail: `${tokenName} is not a bot token (it should start with xoxb-): use the Bot User OAuth Token` };
  let body: Record<string, unknown>;
  try {
    const response = await fetch(`${apiUrl.replace(/\/+$/, "")}/auth.test`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    body = (await response.json()) as Record<string, unknown>; // SAFETY: Slack's Web API answers JSON objects
  } catch (error) {
    return { name, ok: false, detail: `cannot reach ${apiUrl}/auth.test: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}` };
  }
  if (body.ok !== true) {
    return { name, ok: false, detail: `Slack refused ${tokenName}: ${String(body.error ?? "no reason given")} (reinstall the app to the workspace and copy the token again)` };
  }
  return { name, ok: true, detail: `valid for team ${String(body.team ?? body.team_id ?? "?")} as ${String(body.user ?? body.user_id ?? "?")}` };
}

async function checkSecret({ secret, secretName, eventsUrl }: SlackCheckInput): Promise<Check> {
  const name = "signing secret";
  if (!secret) return { name, ok: false, detail: `${secretName} is not set: copy the Signing Secret from the app's Basic Information → App Credentials` };
  if (!eventsUrl && !/^[0-9a-z]{32}$/i.test(secret)) return { name, ok: false, detail: `${secretName} does not look like a Slack signing secret (32 letters and digits): copy it again from Basic Information → App Credentials` };
  if (!eventsUrl) return { name, ok: true, detail: "set, and shaped like a Slack signing secret (pass --url to check a running server accepts it)" };
  const challenge = randomBytes(12).toString("hex");
  const body = JSON.stringify({ type: "url_verification", token: "agent-serve-check", challenge });
  const timestamp = String(Math.floor(Date.now() / 1000));
  let status: number;
  let answer: unknown;
  try {
    const response = await fetch(eventsUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "x-slack-request-timestamp": timestamp, "x-slack-signature": slackSignature(secret, timestamp, body) },
      body,
    });
    status = response.status;
    answer = await response.json().catch(() => undefined);
  } catch (error) {
    return { name, ok: false, detail: `cannot reach ${eventsUrl}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)} (is the server running?)` };
  }
  const shown = eventsUrl.split("?")[0];
  if (status === 200 && (answer as { challenge?: unknown } | undefined)?.challenge === challenge) return { name, ok: true, detail: `${shown} accepts requests signed with it` };
  if (status === 401) return { name, ok: false, detail: `${shown} rejects requests signed with ${secretName}: the server's secret differs (set the same value on both)` };
  if (status === 404) return { name, ok: false, detail: `${shown} answered 404: no Slack channel there (check --url and --channel)` };
  return { name, ok: false, detail: `${shown} answered ${status} to a signed url_verification` };
}
