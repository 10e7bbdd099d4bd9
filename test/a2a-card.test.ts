/**
 * The A2A agent card and the JSON-RPC binding's refusals (docs/guide/a2a.md "The agent card",
 * "Errors"): the card in both layouts with the security the server was started with, its ETag,
 * and every kind of bad request answered with the protocol's code, never a 500.
 */
import { describe, expect, it } from "vitest";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { defineChannel } from "../src/entries/channels.ts";
import { validateAgentConfig } from "../loader/validate-config.ts";
import { helloOptions, project } from "./_harness.ts";
import { clientFor, rpc, serve, userMessage } from "./_a2a.ts";

/** The members of a card these tests read. */
interface CardBody {
  supportedInterfaces: Array<{ url: string }>;
  securitySchemes?: unknown;
  securityRequirements?: unknown;
  security?: unknown;
  skills?: unknown;
}

const card = async (url: string): Promise<{ status: number; body: CardBody; response: Response }> => {
  const response = await fetch(url);
  return { status: response.status, body: (response.status === 200 ? await response.json() : { supportedInterfaces: [] }) as CardBody, response };
};

describe("agent card", () => {
  it("multi mode: per agent, from the project, with the endpoint's absolute URL; the root serves none", async () => {
    const served = await serve(helloOptions({ agents: [{ slug: "hello", project: project({ description: "Says hello" }), storage: createMemoryStorage() }] }));
    try {
      const { status, body, response } = await card(`${served.url}/hello/.well-known/agent-card.json`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        name: "Hello",
        description: "Says hello",
        supportedInterfaces: [
          { url: `${served.url}/hello/v1/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: `${served.url}/hello/v1/a2a`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        ],
        capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
        skills: [{ id: "chat", name: "chat", description: "Says hello", tags: ["chat"] }],
      });
      // Loopback-only: no credential to declare.
      expect(body.securitySchemes).toBeUndefined();
      expect(response.headers.get("cache-control")).toBe("public, max-age=300");
      const etag = response.headers.get("etag")!;
      expect(etag).toMatch(/^"[0-9a-f]{8}"$/);
      const again = await fetch(`${served.url}/hello/.well-known/agent-card.json`, { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect((await fetch(`${served.url}/.well-known/agent-card.json`)).status).toBe(404);
      const info = (await (await fetch(`${served.url}/hello/v1/info`)).json()) as { a2a: unknown };
      expect(info.a2a).toEqual({ agentCard: "/hello/.well-known/agent-card.json", jsonRpc: "/hello/v1/a2a" });
    } finally {
      await served.close();
    }
  });

  it("single mode at the root; under --bearer-token it declares the bearer scheme, and the SDK uses it", async () => {
    const served = await serve(helloOptions({ mode: "single", auth: { bearerToken: "sekrit" } }));
    try {
      const { status, body } = await card(`${served.url}/.well-known/agent-card.json`);
      expect(status).toBe(200);
      expect(body.supportedInterfaces[0]!.url).toBe(`${served.url}/v1/a2a`);
      const description = "The server's bearer token (--bearer-token, or an access token of --oauth-issuer)";
      // 1.0's oneof member and 0.3's OpenAPI-style fields, side by side.
      expect(body.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description }, type: "http", scheme: "bearer", description } });
      expect(body.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
      expect(body.security).toEqual([{ bearer: [] }]);
      // Without the token the agent's chain refuses before any JSON-RPC is read.
      const refused = await fetch(`${served.url}/v1/a2a`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(refused.status).toBe(401);
      const client = await clientFor(served.url, { authorization: "Bearer sekrit" });
      const task = await client.sendMessage({ tenant: "", message: userMessage("/reply with a token"), configuration: undefined, metadata: undefined });
      expect("id" in task && task.status?.state).toBe(3);
    } finally {
      await served.close();
    }
  });

  it("skills list the project's skills and tools", async () => {
    const served = await serve(
      helloOptions({
        agents: [
          {
            slug: "hello",
            project: project({ skills: { review: { description: "Reviews code" } }, tools: { lookup: { description: "Looks things up", inputSchema: { type: "object" }, execute: () => "x" } as never } }),
            storage: createMemoryStorage(),
          },
        ],
      }),
    );
    try {
      const { body } = await card(`${served.url}/hello/.well-known/agent-card.json`);
      expect(body.skills).toEqual([
        { id: "skill:review", name: "review", description: "Reviews code", tags: ["skill"] },
        { id: "tool:lookup", name: "lookup", description: "Looks things up", tags: ["tool"] },
      ]);
    } finally {
      await served.close();
    }
  });
});

describe("skills declared in bot/agent.ts", () => {
  const a2a = {
    skills: [{ id: "summarize", name: "Summarize", description: "Summarizes a text", tags: ["text"], examples: ["summarize this"] }],
    extendedSkills: [{ id: "audit", name: "Audit", description: "Audits the books" }],
  };

  it("the card lists the declared skills; admitted callers get the extended card with the rest", async () => {
    const served = await serve(helloOptions({ mode: "single", auth: { bearerToken: "sekrit" }, agents: [{ slug: "hello", project: project({ agent: { a2a } }), storage: createMemoryStorage() }] }));
    try {
      const { body } = await card(`${served.url}/.well-known/agent-card.json`);
      expect(body.skills).toEqual([{ id: "summarize", name: "Summarize", description: "Summarizes a text", tags: ["text"], examples: ["summarize this"] }]);
      expect((body as unknown as { capabilities: { extendedAgentCard: boolean } }).capabilities.extendedAgentCard).toBe(true);
      const client = await clientFor(served.url, { authorization: "Bearer sekrit" });
      const extended = await client.getAgentCard();
      expect(extended.skills.map((skill) => skill.id)).toEqual(["summarize", "audit"]);
      const rest = await fetch(`${served.url}/v1/a2a/extendedAgentCard`, { headers: { authorization: "Bearer sekrit" } });
      expect(((await rest.json()) as { skills: Array<{ id: string }> }).skills.map((skill) => skill.id)).toEqual(["summarize", "audit"]);
      // Only callers the chain admits.
      expect((await fetch(`${served.url}/v1/a2a/extendedAgentCard`)).status).toBe(401);
    } finally {
      await served.close();
    }
  });

  it("a malformed a2a config is a diagnostic naming the entry", () => {
    expect(validateAgentConfig({ a2a: a2a }, "bot/agent.ts")).toEqual([]);
    const problems = validateAgentConfig({ a2a: { skills: [{ id: "x" }], other: [] } } as never, "bot/agent.ts").map((d) => d.message);
    expect(problems).toEqual([
      "a2a.skills[0] must be {id, name, description} (non-empty strings) with optional string arrays tags and examples",
      "a2a.other is not a key of a2a (skills, extendedSkills, allowPrivatePushTargets)",
    ]);
  });
});

describe("beside a project's own a2a channel", () => {
  it("built-in A2A sessions are not that channel's: its events handlers never see them", async () => {
    const seen: string[] = [];
    const own = defineChannel({ routes: [], events: { "*": (event) => void seen.push(event.sessionId) } });
    const served = await serve(helloOptions({ agents: [{ slug: "hello", project: project({ channels: { a2a: own } }), storage: createMemoryStorage() }] }));
    try {
      const client = await clientFor(`${served.url}/hello`);
      const task = await client.sendMessage({ tenant: "", message: userMessage("/reply mine"), configuration: undefined, metadata: undefined });
      expect("id" in task && task.status?.state).toBe(3);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen).toEqual([]);
    } finally {
      await served.close();
    }
  });
});

describe("bad requests", () => {
  it("each gets the protocol's error code with the request's id, never a 500", async () => {
    const served = await serve(helloOptions());
    const endpoint = `${served.url}/hello/v1/a2a`;
    const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "/reply hi" }] };
    try {
      const code = async (body: unknown, headers?: Record<string, string>): Promise<unknown> => {
        const answer = await rpc(endpoint, body, headers);
        expect(answer.status).toBe(200);
        return (answer.body["error"] as { code: number } | undefined)?.code;
      };
      expect(await code("{not json")).toBe(-32700);
      expect(await code([{ jsonrpc: "2.0", id: 1, method: "GetTask" }])).toBe(-32600);
      expect(await code({ jsonrpc: "1.0", id: 1, method: "GetTask" })).toBe(-32600);
      expect(await code({ jsonrpc: "2.0", method: "GetTask", params: { id: "x" } })).toBe(-32600);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "tasks/unknown" })).toBe(-32601);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "GetTask", params: [] })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "GetTask", params: {} })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "nope" } })).toBe(-32001);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "ses_AAAAAAAAAAAAAAAAAAAA.turn_AAAAAAAAAAAAAAAA" } })).toBe(-32001);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x", historyLength: -1 } })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: {} })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { ...message, parts: [] } } })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { ...message, messageId: undefined } } })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { ...message, role: "ROLE_AGENT" } } })).toBe(-32602);
      // File parts are taken (test/a2a-files.test.ts); a malformed one is invalid params.
      expect(await code({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { ...message, parts: [{ url: "ftp://example.com/a.png" }] } } })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { ...message, parts: [{ raw: "not base64!" }] } } })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { ...message, contextId: "ses_AAAAAAAAAAAAAAAAAAAA" } } })).toBe(-32001);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: { pageSize: 0 } })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: { pageToken: "garbage" } })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: { status: "DONE" } })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "CreateTaskPushNotificationConfig", params: {} })).toBe(-32602);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "CreateTaskPushNotificationConfig", params: { taskId: "nope", url: "https://example.com/hook" } })).toBe(-32001);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard" })).toBe(-32007);
      expect(await code({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }, { "a2a-version": "2.0" })).toBe(-32009);
      const answered = await rpc(endpoint, { jsonrpc: "2.0", id: "abc", method: "GetTask", params: { id: "nope" } });
      expect(answered.body).toMatchObject({ jsonrpc: "2.0", id: "abc", error: { code: -32001 } });
      const wrongType = await fetch(endpoint, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
      expect(wrongType.status).toBe(415);
    } finally {
      await served.close();
    }
  });

  it("tasks belong to the principal that created them", async () => {
    const served = await serve(
      helloOptions({
        auth: {
          policies: [
            (request) => {
              const who = request.headers.get("authorization")?.replace("Bearer ", "");
              return who ? { authenticator: "test", principalId: who, principalType: "user" } : null;
            },
          ],
        },
      }),
    );
    try {
      const alice = await clientFor(`${served.url}/hello`, { authorization: "Bearer alice" });
      const bob = await clientFor(`${served.url}/hello`, { authorization: "Bearer bob" });
      const task = await alice.sendMessage({ tenant: "", message: userMessage("/reply mine"), configuration: undefined, metadata: undefined });
      if (!("id" in task)) throw new Error("expected a Task");
      await expect(bob.getTask({ tenant: "", id: task.id, historyLength: undefined })).rejects.toMatchObject({ name: "TaskNotFoundError" });
      await expect(bob.cancelTask({ tenant: "", id: task.id, metadata: undefined })).rejects.toMatchObject({ name: "TaskNotFoundError" });
      await expect(bob.sendMessage({ tenant: "", message: userMessage("hijack", { contextId: task.contextId }), configuration: undefined, metadata: undefined })).rejects.toMatchObject({ name: "TaskNotFoundError" });
      const listed = await bob.listTasks({ tenant: "", contextId: "", status: 0, pageSize: undefined, pageToken: "", historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: undefined });
      expect(listed.tasks).toEqual([]);
      expect((await alice.getTask({ tenant: "", id: task.id, historyLength: undefined })).id).toBe(task.id);
    } finally {
      await served.close();
    }
  });
});
