/**
 * The cac wiring of the command groups around a deployment and a project's set-up: the deployed
 * worker (`rotate-token`, `rotate-pod-credential`, `stop`, `deployments`, `deployment`; docs/guide/cloudflare.md
 * "Deployments and the alias token"), the channel helpers (`slack`, `github`), `install-skills`,
 * `convert-automation` and the failed webhook deliveries (`webhooks`; docs/guide/cli.md). Wiring
 * only, as in `main.ts`: each command is a function of (args, io) in its own file, loaded on use.
 * @module
 */
import type { CAC } from "cac";
import { projectDir, targetArgs, withTargetOptions } from "./flags.ts";
import type { Flags } from "./flags.ts";
import { UsageError } from "./io.ts";
import type { CliIo } from "./io.ts";
import { rawOption } from "./raw-option.ts";

/** Adds the commands to `cli`; the matched one hands its runner to `setCommand`. */
export function addGroupCommands(cli: CAC, argv: string[], io: CliIo, setCommand: (run: () => Promise<number>) => void): void {
  const json = (flags: Flags): boolean => flags.json === true;
  for (const [name, summary, file] of [
    ["rotate-token", "A new alias token for the deployed worker (the old one stops working at once)", "rotate-token"],
    ["rotate-pod-credential", "A new pod credential for the deployed worker's account bridge (the old one is refused at once)", "rotate-pod-credential"],
    ["stop", "Stop the deployed worker until the next deploy (it answers 503, schedules stop firing)", "stop"],
    ["deployments", "The deployed worker's deployments, as your wrangler reports them", "deployments"],
  ] as const) {
    cli
      .command(name, summary)
      .option("--dir <dir>", "The project directory (default: .)")
      .option("--out <dir>", "The build folder deploy used (default: the project's last deploy's)")
      .option("--json", "Print the result as JSON")
      .action((flags: Flags) => {
        const args = { dir: rawOption(argv, "dir"), out: rawOption(argv, "out"), json: json(flags) };
        setCommand(async () => {
          if (file === "rotate-token") return (await import("./rotate-token.ts")).rotateTokenCommand(args, io);
          if (file === "rotate-pod-credential") return (await import("./rotate-pod-credential.ts")).rotatePodCredentialCommand(args, io);
          if (file === "stop") return (await import("./stop.ts")).stopCommand(args, io);
          return (await import("./deployments.ts")).deploymentsCommand(args, io);
        });
      });
  }
  cli
    .command("deployment [id]", "One deployment (default: the live one) with its status: running, degraded or stopped")
    .option("--dir <dir>", "The project directory (default: .)")
    .option("--out <dir>", "The build folder deploy used (default: the project's last deploy's)")
    .option("--bearer-token <secret>", "Lets the status read the agents' diagnostics (GET /v1/info)")
    .option("--json", "Print {deployment, status, reasons} as JSON")
    .action((id: unknown, flags: Flags) => {
      const args = { dir: rawOption(argv, "dir"), out: rawOption(argv, "out"), bearerToken: rawOption(argv, "bearer-token"), json: json(flags), ...(id === undefined ? {} : { id: String(id) }) };
      setCommand(async () => (await import("./deployments.ts")).deploymentCommand(args, io));
    });
  cli
    .command("slack <action>", "Slack helpers: `slack manifest` prints the app manifest; `slack check` verifies the bot token and signing secret")
    .option("--url <baseUrl>", "The agent's URL (with the slug in multi mode); default: the last deployment of --dir")
    .option("--dir <dir>", "The project directory whose deployment to use (default: .)")
    .option("--slug <slug>", "The deployed agent, when several are deployed")
    .option("--channel <id>", "The channel's id, its file name under bot/channels/ (default: slack)")
    .option("--env-prefix <prefix>", "check: the pack's envPrefix (<PREFIX>_SLACK_BOT_TOKEN, <PREFIX>_SLACK_SIGNING_SECRET)")
    .option("--name <name>", "manifest: the app's display name (default: Agent)")
    .option("--json", "manifest: {ok, requestUrl, manifest}; check: {ok, checks}")
    .action((action: string, flags: Flags) => {
      const args = { action, url: rawOption(argv, "url"), dir: rawOption(argv, "dir"), slug: rawOption(argv, "slug"), channel: rawOption(argv, "channel"), envPrefix: rawOption(argv, "env-prefix"), name: rawOption(argv, "name"), json: json(flags) };
      setCommand(async () => (await import("./slack.ts")).slackCommand(args, io));
    });
  cli
    .command("github <action> [file]", "GitHub helpers: `github manifest` prints a GitHub App manifest; `github redeliver <file>` signs a payload and posts it to a running server")
    .option("--url <baseUrl>", "The agent's URL (with the slug in multi mode); default: the last deployment of --dir")
    .option("--dir <dir>", "The project directory whose deployment to use (default: .)")
    .option("--slug <slug>", "The deployed agent, when several are deployed")
    .option("--channel <id>", "The channel's id, its file name under bot/channels/ (default: github)")
    .option("--name <name>", "manifest: the app's name (default: agent)")
    .option("--event <name>", "redeliver: X-GitHub-Event (default: inferred from the payload)")
    .option("--delivery <id>", "redeliver: X-GitHub-Delivery (default: a new UUID; repeat one to test de-duplication)")
    .option("--json", "manifest: {ok, webhookUrl, manifest}; redeliver: {ok, status, event, delivery, signed, response}")
    .action((action: string, file: unknown, flags: Flags) => {
      const args = { action, ...(file === undefined ? {} : { file: String(file) }), url: rawOption(argv, "url"), dir: rawOption(argv, "dir"), slug: rawOption(argv, "slug"), channel: rawOption(argv, "channel"), name: rawOption(argv, "name"), event: rawOption(argv, "event"), delivery: rawOption(argv, "delivery"), json: json(flags) };
      setCommand(async () => (await import("./github.ts")).githubCommand(args, io));
    });
  withTargetOptions(cli.command("webhooks <action> [endpoint] [deliveryId]", "Signed lifecycle webhooks: `webhooks list` shows failed deliveries; `webhooks redeliver <endpoint> <deliveryId>` posts one again"), true)
    .option("--json", "list: {deliveries}; redeliver: {ok, error?}")
    .action((action: string, endpoint: unknown, deliveryId: unknown, flags: Flags) => {
      const args = { ...targetArgs(undefined, flags, argv), action, json: json(flags), ...(endpoint === undefined ? {} : { endpoint: String(endpoint) }), ...(deliveryId === undefined ? {} : { deliveryId: String(deliveryId) }) };
      setCommand(async () => (await import("./webhooks.ts")).webhooksCommand(args, io));
    });
  cli
    .command("install-skills [dir]", "agent-serve's authoring skills into .cursor/skills/ and .claude/skills/ (pointer in AGENTS.md); --from <folder|git URL|npm package> installs third-party skills into bot/skills/")
    .option("--dir <dir>", "The project directory, as the [dir] argument (default: .)")
    .option("--from <source>", "A folder, git URL or npm package holding a skill (SKILL.md) or skill folders, installed into bot/skills/ after their frontmatter is checked")
    .option("--force", "With --from: replace skills already in bot/skills/")
    .option("--json", "Print {ok, skills, files} or, with --from, {ok, installed, folders} as JSON")
    .action((dir: unknown, flags: Flags) => {
      if (flags.from !== undefined && rawOption(argv, "from") === undefined) throw new UsageError("--from needs a folder, git URL or npm package");
      const args = { dir: projectDir(dir, argv), from: rawOption(argv, "from"), force: flags.force === true, json: json(flags) };
      setCommand(async () => (await import("./install-skills.ts")).installSkillsCommand(args, io));
    });
  cli
    .command("convert-automation <file>", "Turn an automation description (YAML or JSON: trigger, prompt, tools, model) into an agent project")
    .option("--out <dir>", "Where the project goes (default: ./<name>)")
    .option("--dry-run", "Print the files instead of writing them")
    .option("--json", "Print {ok, dir, automation, files} as JSON")
    .action((file: string, flags: Flags) => {
      const args = { file: String(file), out: rawOption(argv, "out"), dryRun: flags.dryRun === true, json: json(flags) };
      setCommand(async () => (await import("./convert-automation.ts")).convertAutomationCommand(args, io));
    });
}
