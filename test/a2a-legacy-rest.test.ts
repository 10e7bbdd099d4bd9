/**
 * 0.3 compatibility beyond the JSON-RPC names (docs/guide/a2a.md "0.3 clients"): under a bearer
 * token the card's security scheme is one a 0.3 client reads (the SDK's own 0.3 card parser), and
 * the 0.3 HTTP+JSON binding the card lists in `additionalInterfaces` answers the SDK's 0.3 REST
 * transport: send (blocking), get with history, stream to the final update, cancel a running task,
 * push notification configs, and a 0.3 error for an unknown task. The raw wire is checked too.
 */
import { TaskState } from "@a2a-js/sdk";
import { LegacyRestTransport, parseLegacyAgentCard } from "@a2a-js/sdk/compat/v0_3/client";
import { describe, expect, it } from "vitest";
import { helloOptions } from "./_harness.ts";
import { serve, stateOf, textOf, userMessage } from "./_a2a.ts";

const TOKEN = "legacy-secret";
const withToken: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${TOKEN}` } });

describe("A2A 0.3 HTTP+JSON and card security", () => {
  it("a 0.3 client reads the card's bearer scheme and speaks the 0.3 REST binding", async () => {
    const served = await serve(helloOptions({ mode: "single", auth: { bearerToken: TOKEN } }));
    try {
      const card = parseLegacyAgentCard(await (await fetch(`${served.url}/.well-known/agent-card.json`)).json());
      expect(card.securitySchemes["bearer"]?.scheme).toEqual({ $case: "httpAuthSecurityScheme", value: expect.objectContaining({ scheme: "bearer" }) });
      expect(card.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
      const rest = card.supportedInterfaces.find((entry) => entry.protocolBinding === "HTTP+JSON");
      expect(rest?.url).toBe(`${served.url}/v1/a2a`);

      const legacy = new LegacyRestTransport({ endpoint: rest!.url, fetchImpl: withToken });
      const task = await legacy.sendMessage({ tenant: "", message: userMessage("/reply over 0.3 rest"), configuration: undefined, metadata: undefined });
      if (!("id" in task)) throw new Error("expected a Task");
      expect(task.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(task.status!.message)).toBe("over 0.3 rest");
      const again = await legacy.getTask({ tenant: "", id: task.id, historyLength: undefined });
      expect(again.history.map((message) => textOf(message))).toEqual(["/reply over 0.3 rest", "over 0.3 rest"]);

      const states: TaskState[] = [];
      for await (const frame of legacy.sendMessageStream({ tenant: "", message: userMessage("/reply streamed", { contextId: task.contextId }), configuration: undefined, metadata: undefined })) {
        const state = stateOf(frame);
        if (state !== undefined) states.push(state);
      }
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);

      // Cancel a running task (sent without blocking).
      const running = await legacy.sendMessage({
        tenant: "",
        message: userMessage("/sleep 5000\n/reply never"),
        configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
        metadata: undefined,
      });
      if (!("id" in running)) throw new Error("expected a Task");
      const canceled = await legacy.cancelTask({ tenant: "", id: running.id, metadata: undefined });
      expect(canceled.status!.state).toBe(TaskState.TASK_STATE_CANCELED);

      // Push notification configs.
      const created = await legacy.createTaskPushNotificationConfig({ tenant: "", id: "hook-1", taskId: task.id, url: "https://example.com/hook", token: "t", authentication: undefined });
      expect(created).toMatchObject({ id: "hook-1", taskId: task.id, url: "https://example.com/hook" });
      expect((await legacy.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook-1" })).url).toBe("https://example.com/hook");
      expect((await legacy.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })).configs.map((config) => config.id)).toEqual(["hook-1"]);
      await legacy.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook-1" });
      expect((await legacy.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })).configs).toEqual([]);

      // Errors are typed from the 0.3 body.
      await expect(legacy.getTask({ tenant: "", id: "ses_AAAAAAAAAAAAAAAAAAAA.turn_AAAAAAAAAAAAAAAA", historyLength: undefined })).rejects.toThrow(/not found/i);

      // The raw 0.3 wire: `content` parts, upper-case states, `{task}`, and `{code, message}` errors.
      const raw = await withToken(`${served.url}/v1/a2a/v1/message:send`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: { messageId: "raw-1", role: "ROLE_USER", content: [{ text: "/reply raw" }, { data: { data: { n: 1 } } }] } }),
      });
      expect(await raw.json()).toMatchObject({ task: { status: { state: "TASK_STATE_COMPLETED", message: { role: "ROLE_AGENT", content: [{ text: expect.stringContaining("raw") }] } } } });
      const missing = await withToken(`${served.url}/v1/a2a/v1/tasks/nope`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ code: -32001, message: 'task not found: "nope"' });
      // The bearer token is required here as everywhere.
      expect((await fetch(`${served.url}/v1/a2a/v1/tasks/nope`)).status).toBe(401);
    } finally {
      await served.close();
    }
  });
});
