/**
 * `ctx.host.kv` (docs/design/agent-sdk-compatibility.md): an unstorage Storage over the host's
 * storage port, with get/put/delete/list, strict keys and values, and honest expiry.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import memoryDriver from "unstorage/drivers/memory";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/host/host.ts";
import { createHostKv } from "../src/engine/kv/kv.ts";
import { decodeKvKey, encodeKvKey } from "../src/engine/kv/storage-port-driver.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { ToolContext } from "../src/base/definitions/tools.ts";
import { project, quietLogger } from "./_harness.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-kv-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("createHostKv over the storage port", () => {
  it("stores JSON values as they were put, strings that look like numbers included", async () => {
    const storage = createMemoryStorage();
    const kv = createHostKv({ storage });
    await kv.put("user:42", { plan: "pro", seats: [1, 2] });
    await kv.put("count", "123");
    await kv.put("flag", false);
    await kv.put("nothing", null);
    expect(await kv.get("user:42")).toEqual({ plan: "pro", seats: [1, 2] });
    expect(await kv.get("count")).toBe("123");
    expect(await kv.get("flag")).toBe(false);
    expect(await kv.get("nothing")).toBeNull();
    expect(await kv.get("missing")).toBeUndefined();
    // Keys are encoded into the storage port's alphabet, under kv/.
    expect(await storage.list("kv/")).toEqual(["kv/count", "kv/flag", "kv/nothing", "kv/user.3A42"]);
    expect(await kv.list()).toEqual(["count", "flag", "nothing", "user:42"]);
    expect(await kv.list("us")).toEqual(["user:42"]);
    await kv.delete("user:42");
    expect(await kv.get("user:42")).toBeUndefined();
    // It is an unstorage Storage as well.
    expect(await kv.getItem("flag")).toBe(false);
  });

  it("round-trips any key through the storage encoding", () => {
    for (const key of ["a", "user:42", "héllo wörld", "x.y-z_1", "emoji 🎉", "%2F"]) {
      const encoded = encodeKvKey(key);
      expect(encoded).toMatch(/^[A-Za-z0-9_.-]+$/);
      expect(decodeKvKey(encoded)).toBe(key);
    }
  });

  it("refuses bad keys and values that are not JSON, changing nothing", async () => {
    const storage = createMemoryStorage();
    const kv = createHostKv({ storage });
    for (const key of ["", "a/b", "a?b", ":a", "a:", "a::b", "meta$", "a:..:b", "x".repeat(257)]) {
      await expect(kv.put(key, 1)).rejects.toThrow(/\[kv\] invalid key/);
    }
    // SAFETY: deliberately wrong values, as untyped JavaScript would pass them.
    const bad = [() => 1, new Date(0), Number.NaN, undefined, 10n, { nested: { fn: () => 1 } }, [1, Infinity]] as unknown as never[];
    for (const value of bad) await expect(kv.put("k", value)).rejects.toThrow(/\[kv\] put\("k"\): value.* is not JSON/);
    await expect(kv.put("k", 1, { ttlSeconds: -1 })).rejects.toThrow(/ttlSeconds must be a positive number/);
    await expect(kv.get(42 as unknown as string)).rejects.toThrow(/invalid key/);
    expect(await storage.list("")).toEqual([]);
  });

  it("expires entries after ttlSeconds, for get and list alike, and a later put without ttl keeps them", async () => {
    const clock = { now: 1_000_000 };
    const storage = createMemoryStorage();
    const kv = createHostKv({ storage, now: () => clock.now });
    await kv.put("session:a", "short", { ttlSeconds: 60 });
    await kv.put("session:b", "long", { ttlSeconds: 3600 });
    await kv.put("session:c", "again", { ttlSeconds: 1 });
    await kv.put("session:c", "forever");
    clock.now += 61_000;
    expect(await kv.get("session:a")).toBeUndefined();
    expect(await kv.list("session:")).toEqual(["session:b", "session:c"]);
    expect(await kv.get("session:c")).toBe("forever");
    // The expired entry and its meta are gone from the store, not only hidden.
    expect((await storage.list("kv/")).filter((key) => key.startsWith("kv/session.3Aa"))).toEqual([]);
  });

  it("is durable in the sqlite storage across instances", async () => {
    const path = join(scratch, "kv.db");
    const first = createSqliteStorage({ path });
    await createHostKv({ storage: first }).put("greeting", { text: "hi" });
    await first.close();
    const second = createSqliteStorage({ path });
    expect(await createHostKv({ storage: second }).get("greeting")).toEqual({ text: "hi" });
    await second.close();
  });

  it("takes any unstorage driver from agent config kv: {driver}", async () => {
    const driver = memoryDriver();
    const storage = createMemoryStorage();
    const kv = createHostKv({ storage, config: { driver } });
    await kv.put("k", [1]);
    expect(await storage.list("")).toEqual([]);
    expect(await driver.getItem!("k", {})).toBe("[1]");
  });
});

describe("ctx.host.kv in host code", () => {
  it("tools and hooks share the agent's kv", async () => {
    const hookSaw: unknown[] = [];
    const host = createHost({
      agents: [
        {
          slug: "kv",
          storage: createMemoryStorage(),
          project: project({
            tools: {
              counter: {
                description: "Counts calls",
                async execute(_input: unknown, ctx: ToolContext) {
                  const kv = ctx.host.kv!;
                  const next = ((await kv.get<number>("calls")) ?? 0) + 1;
                  await kv.put("calls", next);
                  return { calls: next };
                },
              },
            },
            hooks: {
              seen: {
                events: {
                  async "turn.completed"(_event, ctx) {
                    const kv = ctx.host.kv as { get(key: string): Promise<unknown> };
                    hookSaw.push(await kv.get("calls"));
                  },
                },
              },
            },
          }),
        },
      ],
      logger: quietLogger,
      drainTimeoutMs: 50,
    });
    try {
      const call = async (): Promise<unknown> =>
        (await host.request("/kv/v1/tools/counter", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).json();
      expect(await call()).toMatchObject({ ok: true, isError: false, result: { calls: 1 } });
      expect(await call()).toMatchObject({ ok: true, isError: false, result: { calls: 2 } });
      await host.request("/kv/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "/tool counter {}" }) });
      await expect.poll(() => hookSaw, { timeout: 5000 }).toEqual([3]);
    } finally {
      await host.close();
    }
  });
});
