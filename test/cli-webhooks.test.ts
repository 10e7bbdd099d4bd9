/**
 * `agent-serve webhooks list|redeliver` against a served host whose webhook receiver refuses
 * every post until told otherwise (docs/guide/webhooks.md "Failed deliveries").
 */
import { createServer } from "node:http";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, expect, test } from "vitest";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { eventually, helloOptions, project } from "./_harness.ts";
import { serve } from "./_a2a.ts";
import { run, scratchDir } from "./_cli-io.ts";

const { dir: scratch, env } = scratchDir("cli-webhooks");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("webhooks list shows a failed delivery; redeliver posts it once the receiver takes it", async () => {
  let accept = false;
  const received: string[] = [];
  const receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      if (accept) received.push(String(request.headers["webhook-id"]));
      response.writeHead(accept ? 200 : 500).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  const webhooks = [{ id: "ops", url: hookUrl, events: ["turn.completed"], secret: `whsec_${randomBytes(24).toString("base64")}` }];
  const served = await serve(helloOptions({ dev: true, agents: [{ slug: "hello", project: project({ agent: { webhooks } }), storage: createMemoryStorage() }], channels: { retryDelaysMs: [10] } }));
  const url = `${served.url}/hello`;
  try {
    expect((await run(["webhooks", "list", "--url", url], { env })).stdout).toBe("no failed webhook deliveries for hello\n");
    await fetch(`${url}/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "/reply hi" }) });
    const listed = await eventually(async () => {
      const out = await run(["webhooks", "list", "--url", url, "--json"], { env });
      const { deliveries } = JSON.parse(out.stdout) as { deliveries: Array<{ id: string; endpoint: string; attempts: number }> };
      return deliveries.length > 0 ? deliveries : undefined;
    }, 5000, "the failed delivery");
    expect(listed).toEqual([expect.objectContaining({ endpoint: "ops", attempts: 2 })]);
    const id = listed[0]!.id;
    const human = await run(["webhooks", "list", "--url", url], { env });
    expect(human.stdout).toMatch(new RegExp(`^ops\\s+${id}\\s+turn\\.completed\\s+2\\s`, "m"));
    const refused = await run(["webhooks", "redeliver", "ops", id, "--url", url], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/answered 500 \(it stays listed\)/);
    accept = true;
    const done = await run(["webhooks", "redeliver", "ops", id, "--url", url], { env });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe(`redelivered ${id} to ops\n`);
    expect(received).toEqual([id]);
    const gone = await run(["webhooks", "redeliver", "ops", id, "--url", url], { env });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/404 webhook_delivery_not_found/);
    const usage = await run(["webhooks", "redeliver", "ops", "--url", url], { env });
    expect(usage.code).toBe(2);
    expect((await run(["webhooks", "purge", "--url", url], { env })).code).toBe(2);
  } finally {
    await served.close();
    await new Promise((resolve) => receiver.close(resolve));
  }
});
