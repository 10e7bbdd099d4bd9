import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { serveNode } from "../adapters/node.ts";
import { allowAll, bearerAuth, localDev, localDevStrict, loopbackOnly } from "../src/entries/channels.ts";
import { createHost } from "../src/host/host.ts";
import type { AuthContext } from "../src/base/auth.ts";
import { describeHost, helloOptions, postJson } from "./_harness.ts";

const req = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });

describe("auth policies", () => {
  it("localDevStrict admits direct loopback callers with a loopback Host only", async () => {
    const policy = localDevStrict();
    expect(await policy(req("http://127.0.0.1:3000/x", { host: "127.0.0.1:3000" }), { ip: "127.0.0.1" })).toMatchObject({ principalId: "local" });
    expect(await policy(req("http://localhost:3000/x", { host: "localhost:3000" }), { ip: "::ffff:127.0.0.1" })).not.toBeNull();
    expect(await policy(req("http://[::1]:3000/x", { host: "[::1]:3000" }), { ip: "::1" })).not.toBeNull();
    // No Host header (HTTP/1.0): refused like a foreign Host, whatever URL the server built.
    expect(await policy(req("http://127.0.0.1:3000/x"), { ip: "127.0.0.1" })).toBeNull();
    expect(await policy(req("http://127.0.0.1/x"), { ip: "10.0.0.5" })).toBeNull();
    expect(await policy(req("http://127.0.0.1/x"), {})).toBeNull();
    for (const header of ["x-forwarded-for", "x-real-ip", "forwarded", "x-forwarded-host"]) {
      expect(await policy(req("http://127.0.0.1/x", { [header]: "1.2.3.4" }), { ip: "127.0.0.1" }), header).toBeNull();
    }
    expect(await policy(req("http://127.0.0.1/x", { host: "evil.example:3000" }), { ip: "127.0.0.1" })).toBeNull();
  });

  it("localDev skips the Host check; loopbackOnly ignores forwarding headers", async () => {
    const rebinding = req("http://evil.example/x", { host: "evil.example" });
    expect(await localDev()(rebinding, { ip: "127.0.0.1" })).not.toBeNull();
    expect(await localDevStrict()(rebinding, { ip: "127.0.0.1" })).toBeNull();
    expect(await localDev()(req("http://127.0.0.1/x", { "x-forwarded-for": "1.1.1.1" }), { ip: "127.0.0.1" })).toBeNull();
    expect(await loopbackOnly()(req("http://127.0.0.1/x", { "x-forwarded-for": "1.1.1.1" }), { ip: "127.0.0.1" })).not.toBeNull();
    expect(await loopbackOnly()(req("http://127.0.0.1/x"), { ip: "192.168.1.2" })).toBeNull();
  });

  it("bearerAuth compares the token and supports a verifier", async () => {
    const policy = bearerAuth("s3cret");
    expect(await policy(req("http://h/x", { authorization: "Bearer s3cret" }), {})).toMatchObject({ authenticator: "bearerAuth" });
    expect(await policy(req("http://h/x", { authorization: "Bearer s3cre" }), {})).toBeNull();
    expect(await policy(req("http://h/x", { authorization: "Bearer s3cret0" }), {})).toBeNull();
    expect(await policy(req("http://h/x", { authorization: "Basic s3cret" }), {})).toBeNull();
    expect(await policy(req("http://h/x"), {})).toBeNull();
    const verified = bearerAuth((token) => (token === "t1" ? { authenticator: "custom", principalId: "u1", principalType: "user" } : null));
    expect(await verified(req("http://h/x", { authorization: "Bearer t1" }), {})).toMatchObject({ principalId: "u1" });
    expect(await verified(req("http://h/x", { authorization: "Bearer t2" }), {})).toBeNull();
    expect(() => bearerAuth("")).toThrow(/non-empty/);
  });

  it("allowAll admits everyone as anonymous", async () => {
    expect(await allowAll()(req("http://h/x"), {})).toEqual({ authenticator: "allowAll", principalId: "anonymous", principalType: "anonymous" });
  });

  it("refuses bearerToken together with allowAnonymous", () => {
    expect(() => createHost(helloOptions({ auth: { bearerToken: "x", allowAnonymous: true } }))).toThrow(/mutually exclusive/);
  });
});

describeHost("default chain (localDevStrict)", () => helloOptions(), (target) => {
  it("admits direct loopback callers and refuses forwarded ones with 401", async () => {
    expect((await target().fetch("/hello/v1/sessions")).status).toBe(200);
    const forwarded = await target().fetch("/hello/v1/sessions", { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(forwarded.status).toBe(401);
    expect(await forwarded.json()).toMatchObject({ ok: false, error: "unauthorized" });
    const created = await target().fetch("/hello/v1/session", postJson({ message: "hi" }, { "x-real-ip": "203.0.113.9" }));
    expect(created.status).toBe(401);
    expect(await (await target().fetch("/hello/v1/sessions")).json()).toEqual({ sessions: [], nextCursor: null });
  });

  it("health stays public", async () => {
    const response = await target().fetch("/hello/v1/health", { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(response.status).toBe(200);
  });
});

/** One raw HTTP request over a socket: the status line of the answer. */
function rawStatus(url: string, head: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(head));
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("end", () => resolve(answer.split("\r\n")[0] ?? ""));
    socket.on("error", reject);
  });
}

describe("default chain over a real socket", () => {
  it("refuses an HTTP/1.0 request with no Host header like a foreign Host", async () => {
    const host = createHost(helloOptions());
    const server = await serveNode(host, { port: 0, silent: true });
    try {
      expect(await rawStatus(server.url, "GET /hello/v1/sessions HTTP/1.0\r\n\r\n")).toMatch(/^HTTP\/1\.[01] 401/);
      expect(await rawStatus(server.url, "GET /hello/v1/sessions HTTP/1.0\r\nHost: evil.example\r\n\r\n")).toMatch(/^HTTP\/1\.[01] 401/);
      expect(await rawStatus(server.url, "GET /hello/v1/sessions HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")).toMatch(/^HTTP\/1\.[01] 200/);
    } finally {
      await host.close();
      await server.close(true);
    }
  });
});

describe("default chain, remote peers", () => {
  it("refuses a non-loopback peer", async () => {
    const host = createHost(helloOptions());
    try {
      const response = await host.request("/hello/v1/sessions", undefined, { ip: "198.51.100.7" });
      expect(response.status).toBe(401);
    } finally {
      await host.close();
    }
  });
});

describeHost("--bearer-token", () => helloOptions({ auth: { bearerToken: "s3cret" } }), (target) => {
  it("requires the bearer token, even from loopback", async () => {
    expect((await target().fetch("/hello/v1/sessions")).status).toBe(401);
    expect((await target().fetch("/hello/v1/sessions", { headers: { authorization: "Bearer nope" } })).status).toBe(401);
    const ok = await target().fetch("/hello/v1/sessions", { headers: { authorization: "Bearer s3cret" } });
    expect(ok.status).toBe(200);
  });
});

const principals: Record<string, AuthContext> = {
  alice: { authenticator: "test", principalId: "alice", principalType: "user" },
  bob: { authenticator: "test", principalId: "bob", principalType: "user" },
};
const as = (name: string) => ({ authorization: `Bearer ${name}` });

describeHost("ownership", () => helloOptions({ auth: { policies: [bearerAuth((token) => principals[token] ?? null)] } }), (target) => {
  it("binds sessions to their creator: others get 403 and do not see them listed", async () => {
    const created = (await (await target().fetch("/hello/v1/session", postJson({ message: "mine" }, as("alice")))).json()) as {
      sessionId: string;
      continuationToken: string;
    };
    const id = created.sessionId;
    for (const [path, init] of [
      [`/hello/v1/session/${id}/events`, { headers: as("bob") }],
      [`/hello/v1/session/${id}/stream`, { headers: as("bob") }],
      [`/hello/v1/session/${id}/cost`, { headers: as("bob") }],
      [`/hello/v1/session/${id}/stop`, { method: "POST", headers: as("bob") }],
      [`/hello/v1/session/${id}`, { method: "DELETE", headers: as("bob") }],
      [`/hello/v1/session/${id}`, postJson({ continuationToken: created.continuationToken, message: "hijack" }, as("bob"))],
    ] as const) {
      const response = await target().fetch(path, init);
      expect(response.status, path).toBe(403);
      expect(await response.json()).toMatchObject({ ok: false, error: "forbidden" });
    }
    const bobList = (await (await target().fetch("/hello/v1/sessions", { headers: as("bob") })).json()) as { sessions: unknown[] };
    expect(bobList.sessions).toEqual([]);
    const aliceList = (await (await target().fetch("/hello/v1/sessions", { headers: as("alice") })).json()) as { sessions: Array<{ sessionId: string }> };
    expect(aliceList.sessions.map((s) => s.sessionId)).toEqual([id]);
    expect((await target().fetch(`/hello/v1/session/${id}/events`, { headers: as("alice") })).status).toBe(200);
  });
});

describeHost("--allow-anonymous", () => helloOptions({ auth: { allowAnonymous: true } }), (target) => {
  it("admits remote callers and lists sessions of every principal", async () => {
    const viaChannel = await target().host.send("from a channel", { channel: "chat", continuationToken: "c1" });
    const viaHttp = (await (await target().fetch("/hello/v1/session", postJson({ message: "hi" }, { "x-forwarded-for": "203.0.113.9" }))).json()) as {
      sessionId: string;
    };
    const list = (await (await target().fetch("/hello/v1/sessions", { ip: "198.51.100.7" })).json()) as { sessions: Array<{ sessionId: string }> };
    expect(list.sessions.map((s) => s.sessionId).sort()).toEqual([viaChannel.sessionId, viaHttp.sessionId].sort());
  });
});

describeHost("--dev on loopback", () => helloOptions({ dev: true }), (target) => {
  it("widens listing and reads to every session, but follow-ups still need the owner", async () => {
    const other = await target().host.send("/sleep 20\nfrom a channel", { channel: "chat", continuationToken: "c1" });
    const list = (await (await target().fetch("/hello/v1/sessions")).json()) as { sessions: Array<{ sessionId: string }> };
    expect(list.sessions.map((s) => s.sessionId)).toEqual([other.sessionId]);
    expect((await target().fetch(`/hello/v1/session/${other.sessionId}/events`)).status).toBe(200);
    const follow = await target().fetch(`/hello/v1/session/${other.sessionId}`, postJson({ continuationToken: other.continuationToken, message: "x" }));
    expect(follow.status).toBe(403);
  });
});
