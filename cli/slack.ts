/**
 * `agent-serve slack manifest` prints the Slack app manifest the Slack pack needs, its request URL
 * from `--url` or the last deployment; `agent-serve slack check` verifies the bot token and
 * signing secret the pack would read (docs/guide/cli.md "Channel helpers", docs/guide/slack.md).
 * @module
 */
import type { AgentUrlArgs } from "./channels/agent-url.ts";
import { channelUrl } from "./channels/agent-url.ts";
import { checkSlack } from "./channels/slack-check.ts";
import { slackManifest } from "./channels/slack-manifest.ts";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "./io.ts";
import type { CliIo } from "./io.ts";

export interface SlackArgs extends AgentUrlArgs {
  action: string;
  /** The channel's id: its file name under bot/channels/. @default "slack" */
  channel?: string;
  /** As the pack's `envPrefix`: `<PREFIX>_SLACK_BOT_TOKEN`, `<PREFIX>_SLACK_SIGNING_SECRET`. */
  envPrefix?: string;
  /** The app's display name in the manifest. @default "Agent" */
  name?: string;
  json?: boolean;
}

export async function slackCommand(args: SlackArgs, io: CliIo): Promise<number> {
  const channel = args.channel ?? "slack";
  if (args.action === "manifest") {
    const requestUrl = channelUrl(args, channel, "/events", io);
    const manifest = slackManifest(args.name ?? "Agent", requestUrl);
    io.stdout.write(`${JSON.stringify(args.json ? { ok: true, requestUrl, manifest } : manifest, null, args.json ? undefined : 2)}\n`);
    if (!args.json) io.stderr.write("paste it at api.slack.com/apps → Create New App → From an app manifest (JSON)\n");
    return EXIT_OK;
  }
  if (args.action === "check") {
    const prefix = args.envPrefix ? `${args.envPrefix.toUpperCase()}_` : "";
    const tokenName = `${prefix}SLACK_BOT_TOKEN`;
    const secretName = `${prefix}SLACK_SIGNING_SECRET`;
    const named = args.url !== undefined;
    const checks = await checkSlack({
      token: io.env[tokenName],
      tokenName,
      secret: io.env[secretName],
      secretName,
      apiUrl: io.env.SLACK_API_URL ?? "https://slack.com/api",
      ...(named ? { eventsUrl: channelUrl(args, channel, "/events", io) } : {}),
    });
    const ok = checks.every((check) => check.ok);
    if (args.json) io.stdout.write(`${JSON.stringify({ ok, checks })}\n`);
    else io.stdout.write(`${checks.map((check) => `${check.ok ? "ok  " : "FAIL"} ${check.name}: ${check.detail}`).join("\n")}\n`);
    return ok ? EXIT_OK : EXIT_FAILURE;
  }
  throw new UsageError(`slack has two actions, manifest and check (got "${args.action}")`);
}
