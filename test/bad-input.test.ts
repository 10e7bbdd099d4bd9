import { expect, it } from "vitest";
import { allEvents, describeHost, helloOptions, postJson, type HostUnderTest } from "./_harness.ts";

const base = "/hello";

async function expectError(response: Response, status: number, error: string): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ ok: false, error });
  expect(typeof body.message).toBe("string");
  return body;
}

async function sessionCount(target: HostUnderTest): Promise<number> {
  const { sessions } = (await (await target.fetch(`${base}/v1/sessions`)).json()) as { sessions: unknown[] };
  return sessions.length;
}

describeHost("bad input", () => helloOptions({ maxBodyBytes: 64 * 1024 }), (target) => {
  const raw = (body: string): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body });

  it("refuses malformed and wrongly typed create bodies with 400 and creates nothing", async () => {
    await expectError(await target().fetch(`${base}/v1/session`, raw("{not json")), 400, "invalid_request");
    await expectError(await target().fetch(`${base}/v1/session`, raw("[1,2]")), 400, "invalid_request");
    await expectError(await target().fetch(`${base}/v1/session`, raw('"hi"')), 400, "invalid_request");
    await expectError(await target().fetch(`${base}/v1/session`, raw("")), 400, "invalid_request");
    const missing = await expectError(await target().fetch(`${base}/v1/session`, postJson({})), 400, "invalid_request");
    expect(missing.issues).toEqual([expect.objectContaining({ path: "message" })]);
    const wrongType = await expectError(await target().fetch(`${base}/v1/session`, postJson({ message: 42 })), 400, "invalid_request");
    expect(String(wrongType.message)).toMatch(/message/);
    await expectError(await target().fetch(`${base}/v1/session`, postJson({ message: "" })), 400, "invalid_request");
    await expectError(await target().fetch(`${base}/v1/session`, postJson({ message: "hi", title: 7 })), 400, "invalid_request");
    await expectError(await target().fetch(`${base}/v1/session`, postJson({ message: "hi", unexpected: true })), 400, "invalid_request");
    expect(await sessionCount(target())).toBe(0);
  });

  it("answers 413 for bodies over the limit, declared or streamed, and keeps serving", async () => {
    const big = JSON.stringify({ message: "x".repeat(70 * 1024) });
    await expectError(await target().fetch(`${base}/v1/session`, raw(big)), 413, "payload_too_large");
    if (target().kind === "in-process") {
      // No content-length: the limit applies while reading the stream.
      const chunks = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode("x".repeat(8 * 1024)));
          controller.close();
        },
      });
      const response = await target().fetch(`${base}/v1/session`, { method: "POST", body: chunks, duplex: "half" } as RequestInit);
      await expectError(response, 413, "payload_too_large");
    }
    expect(await sessionCount(target())).toBe(0);
    expect((await target().fetch(`${base}/v1/session`, postJson({ message: "still fine" }))).status).toBe(200);
  });

  it("validates follow-up bodies and changes nothing on refusal", async () => {
    const created = (await (await target().fetch(`${base}/v1/session`, postJson({ message: "hi" }))).json()) as {
      sessionId: string;
      continuationToken: string;
    };
    const url = `${base}/v1/session/${created.sessionId}`;
    await expectError(await target().fetch(url, postJson({ message: "no token" })), 400, "invalid_request");
    await expectError(await target().fetch(url, postJson({ continuationToken: 5, message: "x" })), 400, "invalid_request");
    await expectError(await target().fetch(url, raw("{")), 400, "invalid_request");
    await expectError(await target().fetch(url, postJson({ continuationToken: "http:wrong", message: "x" })), 409, "stale_continuation_token");
    const events = await allEvents(target(), base, created.sessionId);
    expect(events.filter((e) => e.type === "message.received")).toHaveLength(1);
    const list = (await (await target().fetch(`${base}/v1/sessions`)).json()) as { sessions: Array<{ continuationToken: string }> };
    expect(list.sessions[0]!.continuationToken).toBe(created.continuationToken);
  });

  it("treats malformed and traversal ids as unknown sessions", async () => {
    for (const id of ["..%2F..%2Fetc%2Fpasswd", "ses_..", "ses_abc%2F..%2F..", "ses_a%00b", "%E0%A4%A", "nope", "ses_" + "a".repeat(200)]) {
      await expectError(await target().fetch(`${base}/v1/session/${id}/events`), 404, "session_not_found");
      await expectError(await target().fetch(`${base}/v1/session/${id}`, postJson({ continuationToken: "http:x", message: "hi" })), 404, "session_not_found");
    }
    const traversal = await target().fetch(`${base}/v1/session/../../v1/health`);
    expect(traversal.status).not.toBe(500);
  });

  it("validates the stream query", async () => {
    const created = (await (await target().fetch(`${base}/v1/session`, postJson({ message: "hi" }))).json()) as { sessionId: string };
    for (const value of ["-1", "abc", "1.5", "1e3"]) {
      await expectError(await target().fetch(`${base}/v1/session/${created.sessionId}/stream?startIndex=${value}`), 400, "invalid_request");
    }
  });

  it("answers unknown routes with 404 and wrong methods with 405", async () => {
    await expectError(await target().fetch(`${base}/v1/nope`), 404, "not_found");
    await expectError(await target().fetch(`/unknown-agent/v1/sessions`), 404, "not_found");
    const wrong = await target().fetch(`${base}/v1/session`, { method: "GET" });
    await expectError(wrong, 405, "method_not_allowed");
    expect(wrong.headers.get("allow")).toBe("POST");
    await expectError(await target().fetch(`${base}/v1/sessions`, { method: "DELETE" }), 405, "method_not_allowed");
  });

  it("keeps serving after a burst of bad requests", async () => {
    await Promise.all(Array.from({ length: 30 }, (_, i) => target().fetch(`${base}/v1/session`, raw(i % 2 ? "{" : "null"))));
    const ok = await target().fetch(`${base}/v1/session`, postJson({ message: "after" }));
    expect(ok.status).toBe(200);
    expect(await sessionCount(target())).toBe(1);
  });
});
