/**
 * A2A (agent-to-agent) JSON-RPC over a custom channel: `GET /v1/channels/a2a/.well-known/agent-card.json`
 * describes the agent; `POST /v1/channels/a2a` takes `message/send` (a conversation per
 * `contextId`, answered once the turn ends) and `tasks/get`. Serve it with
 * `agent-serve serve examples/a2a` and call
 *   curl -X POST localhost:3000/a2a/v1/channels/a2a -H 'content-type: application/json' \
 *     -d '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"contextId":"c1","parts":[{"kind":"text","text":"hi"}]}}}'
 */
import { GET, POST, defineChannel, localDevStrict } from "agent-serve/channels";
import * as v from "valibot";

const request = v.object({
  jsonrpc: v.literal("2.0"),
  id: v.union([v.string(), v.number()]),
  method: v.string(),
  params: v.optional(v.record(v.string(), v.unknown()), {}),
});

const sendParams = v.object({
  message: v.object({
    contextId: v.optional(v.string()),
    parts: v.array(v.object({ kind: v.optional(v.string()), text: v.string() })),
  }),
});

export default defineChannel({
  auth: [localDevStrict()],
  routes: [
    GET("/.well-known/agent-card.json", {
      description: "The A2A agent card",
      querySchema: v.object({}),
      handler: (request) => ({
        name: "a2a example",
        description: "Answers A2A message/send calls with the agent's reply",
        url: new URL(".", request.url).href.replace(/\/\.well-known\/$/, ""),
        capabilities: { streaming: false },
        defaultInputModes: ["text"],
        defaultOutputModes: ["text"],
      }),
    }),
    POST("/", {
      description: "A2A JSON-RPC: message/send, tasks/get",
      bodySchema: request,
      handler: async (_request, { body, send, getSession }) => {
        if (body.method === "message/send") {
          const parsed = v.safeParse(sendParams, body.params);
          if (!parsed.success) return { jsonrpc: "2.0", id: body.id, error: { code: -32602, message: "Invalid params" } };
          const { message } = parsed.output;
          const session = await send(message.parts.map((part) => part.text).join("\n"), {
            ...(message.contextId ? { continuationToken: message.contextId } : {}),
            title: "a2a",
          });
          const done = await session.waitForCompletion();
          return {
            jsonrpc: "2.0",
            id: body.id,
            result: {
              kind: "task",
              id: session.id,
              contextId: session.continuationToken,
              status: { state: done.status === "finished" ? "completed" : "failed", ...(done.errorMessage ? { message: done.errorMessage } : {}) },
              artifacts: [{ parts: [{ kind: "text", text: done.result ?? "" }] }],
            },
          };
        }
        if (body.method === "tasks/get") {
          const session = await getSession(String(body.params.id ?? ""));
          if (!session) return { jsonrpc: "2.0", id: body.id, error: { code: -32001, message: "Task not found" } };
          return { jsonrpc: "2.0", id: body.id, result: { kind: "task", id: session.id, contextId: session.continuationToken, status: { state: session.status } } };
        }
        return { jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } };
      },
    }),
  ],
});
