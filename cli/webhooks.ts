/**
 * `agent-serve webhooks list|redeliver`: the signed lifecycle webhook deliveries that failed after
 * their last retry (`GET /v1/webhooks/deliveries`), and one posted again under its id
 * (`POST /v1/webhooks/deliveries/:endpoint/:deliveryId/redeliver`); docs/guide/webhooks.md.
 * @module
 */
import type { FailedWebhookDelivery } from "../src/entries/events.ts";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { age, table } from "./table.ts";
import { withTarget } from "./target.ts";
import type { TargetArgs } from "./target.ts";
import { ApiError } from "./api-client.ts";

export interface WebhooksArgs extends TargetArgs {
  action: string;
  endpoint?: string;
  deliveryId?: string;
  /** @default false */
  json?: boolean;
}

export async function webhooksCommand(args: WebhooksArgs, io: CliIo): Promise<number> {
  if (args.action !== "list" && args.action !== "redeliver") throw new UsageError(`webhooks takes list or redeliver (got "${args.action}")`);
  if (args.action === "redeliver" && (!args.endpoint || !args.deliveryId)) {
    throw new UsageError("webhooks redeliver needs the endpoint and the delivery id: agent-serve webhooks redeliver <endpoint> <deliveryId>");
  }
  if (args.action === "list" && args.endpoint !== undefined) throw new UsageError(`unexpected argument "${args.endpoint}" (webhooks list takes none)`);
  const progress = createProgress(io, { quiet: args.json });
  return withTarget(args, io, progress, async ({ client, agent }) => {
    if (args.action === "list") {
      const { deliveries } = await client.getJson<{ deliveries: FailedWebhookDelivery[] }>("/v1/webhooks/deliveries");
      if (args.json) io.stdout.write(`${JSON.stringify({ deliveries })}\n`);
      else if (deliveries.length === 0) io.stdout.write(`no failed webhook deliveries for ${agent.slug}\n`);
      else {
        const rows = [["ENDPOINT", "DELIVERY", "EVENT", "ATTEMPTS", "FAILED", "ERROR"]];
        for (const item of deliveries) rows.push([item.endpoint, item.id, item.type, String(item.attempts), age(item.failedAt), item.error]);
        io.stdout.write(`${table(rows).join("\n")}\n`);
      }
      return EXIT_OK;
    }
    const path = `/v1/webhooks/deliveries/${encodeURIComponent(args.endpoint!)}/${encodeURIComponent(args.deliveryId!)}/redeliver`;
    let outcome: { ok: boolean; error?: string };
    try {
      outcome = await client.postJson<{ ok: boolean; error?: string }>(path, {});
    } catch (error) {
      // 502: the receiver refused again; the body says how, and the delivery stays listed.
      if (!(error instanceof ApiError) || error.status !== 502) throw error;
      outcome = error.body as { ok: boolean; error?: string };
    }
    if (args.json) io.stdout.write(`${JSON.stringify(outcome)}\n`);
    else if (outcome.ok) io.stdout.write(`redelivered ${args.deliveryId} to ${args.endpoint}\n`);
    else io.stderr.write(`redelivery of ${args.deliveryId} to ${args.endpoint} failed: ${outcome.error ?? "unknown error"} (it stays listed)\n`);
    return outcome.ok ? EXIT_OK : EXIT_FAILURE;
  });
}
