/**
 * The per-turn tool credential and the runner signature (docs/design/cloud-runtime.md
 * "Authentication"): bound to one session's live turn, revoked at its end, expiring on its own.
 */
import { describe, expect, test } from "vitest";
import { createCloudTurnRegistry } from "../src/features/cloud/cloud-tools.ts";
import { CREDENTIAL_TTL_MS, createCredentialKey } from "../src/features/cloud/session-credential.ts";
import { checkRunnerSignature, signRunnerRequest } from "../src/features/cloud/signing.ts";
import { noTools } from "../src/engine/turns/tool-executor.ts";

const spec = { name: "lookup", description: "Looks up", inputSchema: { type: "object" } };
const live = () => ({ executor: noTools, specs: [spec], written: async () => {}, signal: new AbortController().signal });

describe("turn credentials", () => {
  test("work for their own turn only, until the turn ends", async () => {
    const registry = createCloudTurnRegistry();
    const a = await registry.register({ sessionId: "ses_a", turnId: "turn_1", agent: "x" }, live());
    const b = await registry.register({ sessionId: "ses_b", turnId: "turn_2", agent: "x" }, live());
    expect((await registry.tools(a.credential, null, 0))?.map((tool) => tool.name)).toEqual(["lookup"]);
    a.revoke();
    expect(await registry.tools(a.credential, null, 0)).toBeUndefined();
    expect(await registry.tools(b.credential, null, 0)).toBeDefined();
    // A credential edited to name another session fails its signature.
    const [prefix, payload, sig] = b.credential.split(".");
    const other = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    const forged = `${prefix}.${Buffer.from(JSON.stringify({ ...other, sessionId: "ses_a" })).toString("base64url")}.${sig}`;
    expect(await registry.tools(forged, null, 0)).toBeUndefined();
  });

  test("expire on their own, and another host's key does not verify them", async () => {
    const key = createCredentialKey();
    const now = Date.now();
    const credential = await key.mint({ sessionId: "ses_a", turnId: "turn_1", agent: "x" }, now);
    expect(await key.verify(credential, now + CREDENTIAL_TTL_MS - 1)).toMatchObject({ sessionId: "ses_a" });
    expect(await key.verify(credential, now + CREDENTIAL_TTL_MS + 1)).toBeUndefined();
    expect(await createCredentialKey().verify(credential, now)).toBeUndefined();
  });
});

describe("runner request signatures", () => {
  test("bind the secret, the path, the body and the time", async () => {
    const now = Date.now();
    const header = await signRunnerRequest("secret-one-long-enough", "POST", "/v1/runner/turns", "{}", now);
    expect(await checkRunnerSignature("secret-one-long-enough", header, "POST", "/v1/runner/turns", "{}", now)).toBeUndefined();
    expect(await checkRunnerSignature("secret-two-long-enough", header, "POST", "/v1/runner/turns", "{}", now)).toBe("bad runner signature");
    expect(await checkRunnerSignature("secret-one-long-enough", header, "POST", "/v1/runner/turns", '{"a":1}', now)).toBe("bad runner signature");
    expect(await checkRunnerSignature("secret-one-long-enough", header, "GET", "/v1/runner/sessions/x", "{}", now)).toBe("bad runner signature");
    expect(await checkRunnerSignature("secret-one-long-enough", header, "POST", "/v1/runner/turns", "{}", now + 6 * 60_000)).toMatch(/expired/);
    expect(await checkRunnerSignature("secret-one-long-enough", null, "POST", "/v1/runner/turns", "{}", now)).toMatch(/missing/);
  });
});
