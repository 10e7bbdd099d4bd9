/**
 * `ctx.host.kv` (docs/design/agent-sdk-compatibility.md): an unstorage Storage over the host's
 * storage port, with get/put/delete/list, any string keys (`a/b` and `a:b` apart), strict values
 * and honest expiry.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { createStorage } from "unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import memoryDriver from "unstorage/drivers/memory";
import redisDriver from "unstorage/drivers/redis";
import { createRedisStorage } from "../drivers/redis/index.ts";
import { createSqliteStorage } from "../drivers/sqlite/index.ts";
import { createHost } from "../src/host/host.ts";
import { createHostKv } from "../src/engine/kv/kv.ts";
import type { HostKv } from "../src/base/definitions/kv.ts";
import { decodeKvKey, encodeKvKey } from "../src/engine/kv/storage-port-driver.ts";
import { fromUnstorageKey, toUnstorageKey } from "../src/engine/kv/unstorage-keys.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { ToolContext } from "../src/base/definitions/tools.ts";
import { run, scratchDir } from "./_cli-io.ts";
import { project, quietLogger } from "./_harness.ts";
import { type RedisServer, REDIS_MISSING, REDIS_SERVER, startRedisServer } from "./_redis-server.ts";
import { tempProjects } from "./_temp-projects.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-kv-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const userProject = tempProjects("kv");
const cli = scratchDir("kv-cli");
afterAll(() => rmSync(cli.dir, { recursive: true, force: true }));

/**
 * Keys with `/` and `:` (issue 34): a writing assistant's `drafts/<name>` and `drafts/index`,
 * their `:` twins, and every key unstorage would otherwise rewrite or refuse.
 */
const SLASH_KEYS = ["drafts/launch", "drafts/index", "drafts:launch", "drafts:index", "drafts\\launch", "a/b", "a:b", "a?b", ":a", "a:", "a::b", "/a", "meta$", "a:..:b", ".", "..", "100%", "a%2Fb", "a%252Fb"];

/** Every key holds its own value, lists by prefix across `/` and `:`, and deletes alone. */
async function expectDistinctKeys(kv: HostKv): Promise<void> {
  for (const [i, key] of SLASH_KEYS.entries()) await kv.put(key, { i, key });
  for (const [i, key] of SLASH_KEYS.entries()) expect(await kv.get(key)).toEqual({ i, key });
  expect(await kv.list()).toEqual([...SLASH_KEYS].sort());
  expect(await kv.list("drafts/")).toEqual(["drafts/index", "drafts/launch"]);
  expect(await kv.list("drafts:")).toEqual(["drafts:index", "drafts:launch"]);
  expect(await kv.list("drafts")).toEqual(["drafts/index", "drafts/launch", "drafts:index", "drafts:launch", "drafts\\launch"]);
  await kv.delete("drafts/launch");
  expect(await kv.get("drafts/launch")).toBeUndefined();
  expect(await kv.get("drafts:launch")).toEqual({ i: 2, key: "drafts:launch" });
  await kv.put("drafts/ttl", 1, { ttlSeconds: 60 });
  expect(await kv.list("drafts/")).toEqual(["drafts/index", "drafts/ttl"]);
}

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
    for (const key of ["", "x".repeat(257)]) await expect(kv.put(key, 1)).rejects.toThrow(/\[kv\] invalid key/);
    // SAFETY: deliberately wrong values, as untyped JavaScript would pass them.
    const bad = [() => 1, new Date(0), Number.NaN, undefined, 10n, { nested: { fn: () => 1 } }, [1, Infinity]] as unknown as never[];
    for (const value of bad) await expect(kv.put("k", value)).rejects.toThrow(/\[kv\] put\("k"\): value.* is not JSON/);
    await expect(kv.put("k", 1, { ttlSeconds: -1 })).rejects.toThrow(/ttlSeconds must be a positive number/);
    await expect(kv.get(42 as unknown as string)).rejects.toThrow(/invalid key/);
    expect(await storage.list("")).toEqual([]);
  });

  it("keeps the storage layout of keys without / (entries written before issue 34 read back)", async () => {
    const storage = createMemoryStorage();
    // What the previous kv wrote for put("drafts:index", ["launch"]) and put("count", 3).
    await storage.set("kv/drafts.3Aindex", '["launch"]');
    await storage.set("kv/count", "3");
    const kv = createHostKv({ storage });
    expect(await kv.get("drafts:index")).toEqual(["launch"]);
    expect(await kv.list()).toEqual(["count", "drafts:index"]);
    await kv.put("drafts/index", ["other"]);
    expect(await kv.get("drafts:index")).toEqual(["launch"]);
  });

  it("escapes keys into unstorage keys it keeps as they are, one per key, and reads them back", async () => {
    const alphabet = fc.constantFrom("a", "b", "/", ":", "\\", "?", "$", ".", "%", "2", "F", "3", "A", "5", "C", "é");
    const key = fc.array(alphabet, { minLength: 1, maxLength: 10 }).map((chars) => chars.join(""));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(key, { maxLength: 20 }), async (keys) => {
        const unstorage = createStorage({ driver: memoryDriver() });
        for (const k of keys) await unstorage.setItem(toUnstorageKey(k), { k });
        for (const k of keys) {
          expect(fromUnstorageKey(toUnstorageKey(k))).toBe(k);
          expect(await unstorage.getItem(toUnstorageKey(k))).toEqual({ k });
        }
        // unstorage rewrote none of them, merged none and took none for another key's meta.
        expect((await unstorage.getKeys()).sort()).toEqual(keys.map(toUnstorageKey).sort());
      }),
      { numRuns: 300 },
    );
    // Keys the facade took before `/` was allowed are their own unstorage keys.
    for (const k of ["user:42", "count", "session:a", "héllo wörld", "50% off", "rate%20limit", "a$b"]) expect(toUnstorageKey(k)).toBe(k);
    expect(toUnstorageKey("drafts/launch")).toBe("drafts%2Flaunch");
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

  it("keeps keys with / and : apart and lists them by prefix: memory, sqlite, an unstorage driver (issue 34)", async () => {
    await expectDistinctKeys(createHostKv({ storage: createMemoryStorage() }));
    const path = join(scratch, "slash-keys.db");
    const sqlite = createSqliteStorage({ path });
    await expectDistinctKeys(createHostKv({ storage: sqlite }));
    await sqlite.close();
    // A later process reads the same keys back.
    const reopened = createSqliteStorage({ path });
    expect(await createHostKv({ storage: reopened }).get("drafts/index")).toEqual({ i: 1, key: "drafts/index" });
    await reopened.close();
    await expectDistinctKeys(createHostKv({ storage: createMemoryStorage(), config: { driver: memoryDriver() } }));
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

describe.skipIf(!REDIS_SERVER)(`kv keys with / and : on Redis${REDIS_MISSING}`, () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("keeps them apart over the Redis storage port and over unstorage's Redis driver", async () => {
    const storage = createRedisStorage({ url: server.url, prefix: "kv-port:" });
    try {
      await expectDistinctKeys(createHostKv({ storage }));
    } finally {
      await storage.close();
    }
    const driver = redisDriver({ url: server.url, base: "kv-driver" });
    try {
      await expectDistinctKeys(createHostKv({ storage: createMemoryStorage(), config: { driver } }));
    } finally {
      await driver.dispose?.();
    }
  });
});

describe("ctx.host.kv in host code", () => {
  it("a writing assistant's tools keep drafts under drafts/<name> and drafts/index, called with agent-serve call (issue 34)", async () => {
    const dir = userProject({
      "bot/tools/save_draft.ts": `import { defineTool } from "@cursor/bdk/tools";
import { z } from "zod";

export default defineTool({
  description: "Save a draft under a name",
  inputSchema: z.object({ name: z.string().min(1), text: z.string() }),
  async execute({ name, text }, ctx) {
    await ctx.host.kv.put(\`drafts/\${name}\`, { text });
    const index = (await ctx.host.kv.get("drafts/index")) ?? [];
    if (!index.includes(name)) await ctx.host.kv.put("drafts/index", [...index, name]);
    return { saved: name };
  },
});
`,
      "bot/tools/load_draft.ts": `import { defineTool } from "@cursor/bdk/tools";
import { z } from "zod";

export default defineTool({
  description: "Load a draft by name",
  inputSchema: z.object({ name: z.string().min(1) }),
  async execute({ name }, ctx) {
    const draft = await ctx.host.kv.get(\`drafts/\${name}\`);
    if (!draft) throw new Error(\`no draft named \${name}\`);
    return { name, text: draft.text, index: await ctx.host.kv.get("drafts/index"), keys: await ctx.host.kv.list("drafts/") };
  },
});
`,
    });
    const call = async (tool: string, input: unknown): Promise<unknown> => {
      const result = await run(["call", tool, "--input", JSON.stringify(input), "--json"], { env: cli.env, cwd: dir });
      expect(result.stderr).toBe("");
      return JSON.parse(result.stdout);
    };
    expect(await call("save_draft", { name: "launch", text: "We ship on Monday." })).toMatchObject({ ok: true, isError: false, result: { saved: "launch" } });
    expect(await call("save_draft", { name: "recap", text: "It shipped." })).toMatchObject({ isError: false });
    // Each call is its own local server over the project's state: the drafts are durable.
    expect(await call("load_draft", { name: "launch" })).toMatchObject({
      isError: false,
      result: { name: "launch", text: "We ship on Monday.", index: ["launch", "recap"], keys: ["drafts/index", "drafts/launch", "drafts/recap"] },
    });
  });

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
