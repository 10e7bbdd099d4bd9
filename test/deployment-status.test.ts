/**
 * The status `agent-serve deployment` reports for the live deployment (docs/guide/cloudflare.md
 * "Deployments and the alias token"), against a loopback server answering as a worker would:
 * running, degraded (a warning diagnostic, a failing /v1/info, an unreachable worker), stopped.
 * Every request carries the alias token. The built worker's own answers are in
 * cloudflare-deployments.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { deploymentStatus } from "../cli/cloudflare/deployment-status.ts";
import type { DeploymentState } from "../cli/cloudflare/deployment-state.ts";
import { type StubApi, startStubApi } from "./_stub-api.ts";

let answers: Record<string, { status?: number; body: unknown }> = {};
let worker: StubApi;
beforeAll(async () => {
  worker = await startStubApi((call) => {
    if (call.headers["x-agent-alias-token"] !== "tok") return { status: 401, body: { ok: false, error: "alias_token_invalid" } };
    return answers[call.path] ?? { status: 404, body: { ok: false } };
  });
});
afterAll(() => worker.close());

const state = (url: string): DeploymentState => ({ worker: "w", url, aliasToken: "tok", buildId: "b", mode: "multi", slugs: ["a"], outDir: "", deployedAt: "" });

describe("deployment status", () => {
  test("running: health answers and the agent reports no warnings or errors", async () => {
    answers = { "/a/v1/health": { body: { ok: true, slug: "a" } }, "/a/v1/info": { body: { diagnostics: [{ severity: "info", code: "runtime_limits", message: "x" }] } } };
    expect(await deploymentStatus(state(worker.url), "bearer")).toEqual({ status: "running", reasons: [] });
    expect(worker.calls.at(-1)?.headers.authorization).toBe("Bearer bearer");
  });

  test("degraded: a warning diagnostic, or /v1/info failing (the store unavailable)", async () => {
    answers["/a/v1/info"] = { body: { diagnostics: [{ severity: "warning", code: "missing_secret", message: "SLACK_BOT_TOKEN is not set" }] } };
    expect(await deploymentStatus(state(worker.url), undefined)).toEqual({ status: "degraded", reasons: ["a: warning missing_secret: SLACK_BOT_TOKEN is not set"] });
    answers["/a/v1/info"] = { status: 503, body: { ok: false, error: "storage_unavailable", message: "the store is unavailable" } };
    expect(await deploymentStatus(state(worker.url), undefined)).toEqual({ status: "degraded", reasons: ["a: GET /v1/info answered 503: the store is unavailable"] });
    expect((await deploymentStatus(state("http://127.0.0.1:9"), undefined)).status).toBe("degraded");
  });

  test("running with a note when /v1/info needs a bearer token; stopped when the worker says so", async () => {
    answers["/a/v1/info"] = { status: 401, body: { ok: false, error: "unauthorized" } };
    expect(await deploymentStatus(state(worker.url), undefined)).toEqual({ status: "running", reasons: ["a: diagnostics not checked (GET /v1/info answered 401: pass --bearer-token)"] });
    answers["/a/v1/health"] = { status: 503, body: { ok: false, error: "deployment_stopped", message: "stopped" } };
    expect((await deploymentStatus(state(worker.url), undefined)).status).toBe("stopped");
  });
});
