import { describe, expect, it } from "vitest";
import { isSessionId, newSessionId, timePrefix } from "../src/base/ids.ts";
import { createHost } from "../src/index.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";

describe("session ids (docs/design/speed.md \"Session ids sort by time\")", () => {
  it("keep the ses_ and 20 characters shape, and are valid session ids", () => {
    const id = newSessionId();
    expect(id).toMatch(/^ses_[A-Za-z0-9]{20}$/);
    expect(isSessionId(id)).toBe(true);
  });

  it("sort as their creation times do, by plain string order", () => {
    const times = [0, 1, 61, 62, 3843, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 62 ** 8 - 1];
    const prefixes = times.map(timePrefix);
    expect(prefixes.every((prefix) => prefix.length === 8)).toBe(true);
    expect([...prefixes].sort()).toEqual(prefixes);
    expect(timePrefix(62)).toBe("00000010");
  });

  it("start with the time they were made at and differ within one millisecond", () => {
    const before = timePrefix(Date.now());
    const ids = Array.from({ length: 1000 }, newSessionId);
    const after = timePrefix(Date.now());
    for (const id of ids) {
      const prefix = id.slice(4, 12);
      expect(prefix >= before && prefix <= after).toBe(true);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("a host's sessions created one after another sort in creation order", async () => {
    const host = createHost({ agents: [{ slug: "a", project: { name: "a", agent: {}, instructions: "x", diagnostics: [] }, storage: createMemoryStorage() }] });
    await host.ready();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await host.request("/a/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: '{"message":"hi"}' });
        ids.push(((await response.json()) as { sessionId: string }).sessionId);
        // The next id's millisecond must be a later one: within one, the random part orders them.
        const answeredAt = Date.now();
        while (Date.now() <= answeredAt) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      expect([...ids].sort()).toEqual(ids);
    } finally {
      await host.close();
    }
  });
});
