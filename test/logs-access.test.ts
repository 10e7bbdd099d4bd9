/** Who reads `GET /v1/logs` under each auth mode (docs/design/logging.md "Who reads the log"). */
import { expect, it } from "vitest";
import { bearerAuth } from "../src/entries/channels.ts";
import type { AuthContext } from "../src/base/auth.ts";
import { describeHost, helloOptions, postJson } from "./_harness.ts";

const principals: Record<string, AuthContext> = {
  alice: { authenticator: "test", principalId: "alice", principalType: "user" },
  bob: { authenticator: "test", principalId: "bob", principalType: "user" },
};
const as = (name: string) => ({ authorization: `Bearer ${name}` });

describeHost("logs under a verifier that tells principals apart", () => helloOptions({ auth: { policies: [bearerAuth((token) => principals[token] ?? null)] } }), (target) => {
  it("refuses every verified principal: the log names the others' sessions", async () => {
    const created = await target().fetch("/hello/v1/session", postJson({ message: "mine" }, as("alice")));
    expect(created.status).toBe(200);
    for (const name of ["alice", "bob"]) {
      const response = await target().fetch("/hello/v1/logs", { headers: as(name) });
      expect(response.status, name).toBe(403);
      expect(await response.json()).toMatchObject({ ok: false, error: "forbidden" });
    }
  });
});

describeHost("logs under the default loopback chain", () => helloOptions(), (target) => {
  it("serves the loopback operator", async () => {
    expect((await target().fetch("/hello/v1/logs")).status).toBe(200);
  });
});

describeHost("logs under --bearer-token", () => helloOptions({ auth: { bearerToken: "s3cret" } }), (target) => {
  it("serves the holder of the one shared token", async () => {
    expect((await target().fetch("/hello/v1/logs", { headers: { authorization: "Bearer s3cret" } })).status).toBe(200);
  });
});

describeHost("logs under --allow-anonymous", () => helloOptions({ auth: { allowAnonymous: true } }), (target) => {
  it("serves anyone: every caller already sees every session", async () => {
    expect((await target().fetch("/hello/v1/logs", { ip: "198.51.100.7" })).status).toBe(200);
  });
});
