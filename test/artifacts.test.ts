import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineArtifacts } from "../src/entries/artifacts.ts";
import { ArtifactStore, type TagAttribution } from "../src/features/artifacts/store.ts";
import { tagArtifactTool, validateArtifactsDefinition } from "../src/features/artifacts/tag-tool.ts";
import type { ArtifactsDefinition, TagInput } from "../src/base/definitions/artifacts.ts";
import { HTTPError } from "../src/base/errors.ts";
import { EventLog } from "../src/engine/sessions/event-log.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import type { StorageDriver } from "../src/base/storage/types.ts";
import { bearerAuth } from "../src/entries/channels.ts";
import type { AuthContext } from "../src/base/auth.ts";
import { defineTool } from "../src/entries/tools.ts";
import type { ToolDefinition } from "../src/base/definitions/tools.ts";
import type { AgentHostOptions } from "../src/host/types.ts";
import { type HostUnderTest, type TestEvent, describeHost, eventually, helloOptions, project, quietLogger } from "./_harness.ts";

const SES_A = "ses_aaaaaaaaaaaaaaaaaaaa";
const SES_B = "ses_bbbbbbbbbbbbbbbbbbbb";

interface Fixture {
  storage: StorageDriver;
  log: EventLog;
  store: ArtifactStore;
  clock: { t: number };
  open(definition?: ArtifactsDefinition): ArtifactStore;
}

async function fixture(definition?: ArtifactsDefinition, storage: StorageDriver = createMemoryStorage()): Promise<Fixture> {
  const clock = { t: Date.parse("2030-01-01T00:00:00.000Z") };
  const now = () => clock.t;
  const log = new EventLog(storage, now);
  for (const id of [SES_A, SES_B]) {
    if ((await log.length(id)) === 0) await log.append(id, [{ type: "session.started", data: { mode: "chat", channel: "http" } }]);
  }
  const open = (def?: ArtifactsDefinition) =>
    new ArtifactStore({ storage, ...(def ? { definition: def } : {}), log, now, logger: quietLogger });
  return { storage, log, store: open(definition), clock, open };
}

const host = (sessionId: string, turnId?: string): TagAttribution => ({ source: "host", sessionId, ...(turnId ? { turnId } : {}) });

async function rejection(promise: Promise<unknown>): Promise<HTTPError> {
  try {
    await promise;
  } catch (error) {
    if (HTTPError.isError(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

async function taggedEvents(log: EventLog, sessionId: string) {
  return (await log.readEvents(sessionId)).filter((e) => e.type === "artifact.tagged");
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("ArtifactStore: tag and re-tag", () => {
  it("stores a record with defaults and announces it on the attributed session", async () => {
    const { store, log } = await fixture();
    const record = await store.tag({ key: "k1", title: "First", data: { n: 1 } }, host(SES_A, "turn_1"));
    expect(record).toMatchObject({ kind: "artifact", key: "k1", title: "First", data: { n: 1 }, source: "host", sessionId: SES_A, turnId: "turn_1", hasContent: false });
    expect(record.id).toMatch(/^art_[A-Za-z0-9]{20}$/);
    expect(record.createdAt).toBe("2030-01-01T00:00:00.000Z");
    expect(record.updatedAt).toBe(record.createdAt);
    const events = await taggedEvents(log, SES_A);
    expect(events).toHaveLength(1);
    expect(events[0]!.turnId).toBe("turn_1");
    expect(events[0]!.data).toEqual({ artifact: { id: record.id, kind: "artifact", key: "k1", title: "First", data: { n: 1 }, source: "host" } });
    expect(await taggedEvents(log, SES_B)).toEqual([]);
    expect(await store.get(record.id)).toEqual(record);
  });

  it("re-tagging the same (kind, key) replaces the record, keeps id and createdAt, and keeps the payload without contents", async () => {
    const { store, clock } = await fixture();
    const first = await store.tag({ key: "doc", title: "v1", data: 1, contents: "hello", contentType: "text/markdown" }, host(SES_A));
    clock.t += 1000;
    const second = await store.tag({ key: "doc", title: "v2", data: 2 }, host(SES_A));
    expect(second.id).toBe(first.id);
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.updatedAt).toBe("2030-01-01T00:00:01.000Z");
    expect(second).toMatchObject({ title: "v2", data: 2, hasContent: true, contentType: "text/markdown" });
    expect(text((await store.content(first.id))!.body)).toBe("hello");
    clock.t += 1000;
    const third = await store.tag({ key: "doc", title: "v3", contents: new Uint8Array([1, 2, 3]) }, host(SES_A));
    expect(third.id).toBe(first.id);
    expect(third.contentType).toBeUndefined();
    expect(third.data).toBeNull();
    const content = await store.content(first.id);
    expect([...content!.body]).toEqual([1, 2, 3]);
    expect(content!.contentType).toBe("application/octet-stream");
    expect(await store.list()).toHaveLength(1);
  });

  it("keys are per kind, and a re-tag from another session moves the record there", async () => {
    const { store, log } = await fixture();
    const a = await store.tag({ kind: "x", key: "same", title: "x" }, host(SES_A));
    const b = await store.tag({ kind: "y", key: "same", title: "y" }, host(SES_A));
    expect(a.id).not.toBe(b.id);
    const moved = await store.tag({ kind: "x", key: "same", title: "x2" }, host(SES_B));
    expect(moved).toMatchObject({ id: a.id, sessionId: SES_B });
    expect((await taggedEvents(log, SES_B)).map((e) => (e.data["artifact"] as { id: string }).id)).toEqual([a.id]);
  });

  it("needs a sessionId when unbound, checks it, and lets a bound attribution win over the input", async () => {
    const { store, log } = await fixture();
    const missing = await rejection(store.tag({ key: "k", title: "t" }, { source: "host" }));
    expect(missing.status).toBe(400);
    expect(missing.code).toBe("invalid_request");
    expect(missing.message).toMatch(/sessionId is required/);
    for (const sessionId of ["ses_unknown000000000000", "../etc", "nope"]) {
      const unknown = await rejection(store.tag({ key: "k", title: "t", sessionId }, { source: "host" }));
      expect(unknown.status, sessionId).toBe(400);
      expect(unknown.message).toMatch(/unknown session/);
    }
    const unbound = await store.facade().tag({ key: "k", title: "t", sessionId: SES_B });
    expect(unbound).toMatchObject({ sessionId: SES_B, source: "host" });
    expect(unbound.turnId).toBeUndefined();
    const bound = await store.facade({ sessionId: SES_A, turnId: "turn_x" }).tag({ key: "k2", title: "t", sessionId: SES_B });
    expect(bound).toMatchObject({ sessionId: SES_A, turnId: "turn_x", source: "host" });
    expect((await taggedEvents(log, SES_A)).map((e) => e.turnId)).toEqual(["turn_x"]);
    expect(await store.facade().list({ sessionId: SES_B })).toHaveLength(1);
  });

  it("rejects malformed input with 400 and stores nothing", async () => {
    const { store, log } = await fixture();
    const bad: Array<[unknown, RegExp]> = [
      [{ key: "", title: "t" }, /key must not be empty/],
      [{ title: "t" }, /key/],
      [{ key: "k" }, /title/],
      [{ key: "k", title: "t", kind: "" }, /kind must not be empty/],
      [{ key: "k", title: "t", contents: 42 }, /contents must be a string or bytes/],
      [{ key: "k", title: "t", contents: "x", contentType: "text/html\r\nx-evil: 1" }, /contentType must be a media type/],
      [{ key: "k", title: "t", data: { big: 10n } }, /not JSON-serializable/],
      [undefined, /invalid artifact/],
    ];
    for (const [input, message] of bad) {
      const error = await rejection(store.tag(input as TagInput, host(SES_A)));
      expect(error.status, String(message)).toBe(400);
      expect(error.code).toBe("invalid_request");
      expect(error.message).toMatch(message);
    }
    expect(await store.list()).toEqual([]);
    expect(await taggedEvents(log, SES_A)).toEqual([]);
  });
});

describe("ArtifactStore: kinds", () => {
  const definition = defineArtifacts({
    kinds: {
      report: {
        description: "A report",
        schema: v.object({ words: v.pipe(v.string(), v.transform(Number)), lang: v.optional(v.string(), "en") }),
      },
      note: { description: "A note" },
    },
  });

  it("accepts only declared kinds and stores the schema's parsed output", async () => {
    const { store } = await fixture(definition);
    const record = await store.tag({ kind: "report", key: "r", title: "R", data: { words: "120", extra: true } }, host(SES_A));
    expect(record.data).toEqual({ words: 120, lang: "en" });
    expect((await store.get(record.id))!.data).toEqual({ words: 120, lang: "en" });
    const note = await store.tag({ kind: "note", key: "n", title: "N", data: ["anything", 1] }, host(SES_A));
    expect(note.data).toEqual(["anything", 1]);
    const unknown = await rejection(store.tag({ kind: "memo", key: "m", title: "M" }, host(SES_A)));
    expect(unknown.status).toBe(400);
    expect(unknown.message).toMatch(/unknown artifact kind "memo"; declared kinds: report, note/);
    expect(unknown.data).toEqual({ kinds: ["report", "note"] });
    // With kinds declared, the default kind is not implied.
    expect((await rejection(store.tag({ key: "d", title: "D" }, host(SES_A)))).message).toMatch(/unknown artifact kind "artifact"/);
    const invalid = await rejection(store.tag({ kind: "report", key: "r2", title: "R", data: { words: 5 } }, host(SES_A)));
    expect(invalid.status).toBe(400);
    expect(invalid.data?.["issues"]).toEqual([{ path: "words", message: expect.stringMatching(/string/) }]);
    expect((await store.list()).map((r) => r.key)).toEqual(["n", "r"]);
  });

  it("accepts any kind when none are declared", async () => {
    const { store } = await fixture({ kinds: {} });
    expect((await store.tag({ kind: "whatever", key: "w", title: "W" }, host(SES_A))).kind).toBe("whatever");
  });

  it("refuses a max that is not a positive integer", async () => {
    const { open } = await fixture();
    for (const max of [0, -1, 1.5, Number.NaN]) expect(() => open({ max }), String(max)).toThrow(/max must be a positive integer/);
  });
});

describe("ArtifactStore: cap, listing and persistence", () => {
  it("evicts the oldest-updated record past the cap, with its payload; a re-tag refreshes", async () => {
    const { store, storage, clock } = await fixture({ max: 3 });
    const a = await store.tag({ key: "a", title: "A", contents: "payload a" }, host(SES_A));
    clock.t += 1;
    const b = await store.tag({ key: "b", title: "B", contents: "payload b" }, host(SES_A));
    clock.t += 1;
    const c = await store.tag({ key: "c", title: "C" }, host(SES_B));
    clock.t += 1;
    await store.tag({ key: "a", title: "A2" }, host(SES_A)); // refreshes a: b is now the oldest
    clock.t += 1;
    const d = await store.tag({ key: "d", title: "D" }, host(SES_A));
    expect((await store.list()).map((r) => r.key)).toEqual(["d", "a", "c"]);
    expect(await store.get(b.id)).toBeUndefined();
    expect(await store.content(b.id)).toBeUndefined();
    expect(await storage.get(`artifacts/${b.id}`)).toBeUndefined();
    expect(await storage.get(`artifact-content/${b.id}`)).toBeUndefined();
    expect(text((await store.content(a.id))!.body)).toBe("payload a");
    // The evicted key is free again: tagging it makes a new artifact, evicting c (now the oldest).
    clock.t += 1;
    const b2 = await store.tag({ key: "b", title: "B again" }, host(SES_A));
    expect(b2.id).not.toBe(b.id);
    expect((await store.list()).map((r) => r.id)).toEqual([b2.id, d.id, a.id]);
    expect(await storage.get(`artifacts/${c.id}`)).toBeUndefined();
    expect((await storage.list("artifacts/")).length).toBe(3);
  });

  it("keeps the newest-updated order by tag order even when the clock stands still", async () => {
    const { store } = await fixture({ max: 2 });
    for (const key of ["x", "y", "z"]) await store.tag({ key, title: key }, host(SES_A));
    expect((await store.list()).map((r) => r.key)).toEqual(["z", "y"]);
  });

  it("filters by kind and session, limits, and lists newest-updated first", async () => {
    const { store, clock } = await fixture();
    const tags: Array<[string, string, string]> = [
      ["report", "r1", SES_A],
      ["note", "n1", SES_A],
      ["report", "r2", SES_B],
      ["note", "n2", SES_B],
    ];
    for (const [kind, key, sessionId] of tags) {
      clock.t += 10;
      await store.tag({ kind, key, title: key }, host(sessionId));
    }
    clock.t += 10;
    await store.tag({ kind: "report", key: "r1", title: "r1 again" }, host(SES_A));
    expect((await store.list()).map((r) => r.key)).toEqual(["r1", "n2", "r2", "n1"]);
    expect((await store.list({ kind: "report" })).map((r) => r.key)).toEqual(["r1", "r2"]);
    expect((await store.list({ sessionId: SES_B })).map((r) => r.key)).toEqual(["n2", "r2"]);
    expect((await store.list({ kind: "note", sessionId: SES_A })).map((r) => r.key)).toEqual(["n1"]);
    expect((await store.list({ limit: 2 })).map((r) => r.key)).toEqual(["r1", "n2"]);
    expect(await store.list({ kind: "none" })).toEqual([]);
  });

  it("serializes concurrent tags: one record per key, and the cap holds", async () => {
    const { store, storage } = await fixture({ max: 3 });
    const same = await Promise.all(Array.from({ length: 10 }, (_, i) => store.tag({ key: "same", title: `t${i}` }, host(SES_A))));
    expect(new Set(same.map((r) => r.id)).size).toBe(1);
    expect((await store.get(same[0]!.id))!.title).toBe("t9");
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.tag({ key: `k${i}`, title: "t", contents: "x" }, host(SES_B))));
    expect((await store.list()).map((r) => r.key)).toEqual(["k9", "k8", "k7"]);
    expect((await storage.list("artifacts/")).length).toBe(3);
    expect((await storage.list("artifact-content/")).length).toBe(3);
  });

  it("hands out copies: mutating a returned record changes nothing stored", async () => {
    const { store } = await fixture();
    const record = await store.tag({ key: "k", title: "t", data: { deep: { n: 1 } } }, host(SES_A));
    (record.data as { deep: { n: number } }).deep.n = 99;
    const [listed] = await store.list();
    (listed!.data as { deep: { n: number } }).deep.n = 98;
    expect((await store.get(record.id))!.data).toEqual({ deep: { n: 1 } });
  });

  it("reloads from storage once, lazily, keeping ids, order, payloads and the cap", async () => {
    const storage = createMemoryStorage();
    const first = await fixture({ max: 3 }, storage);
    for (const key of ["a", "b", "c"]) {
      first.clock.t += 1;
      await first.store.tag({ key, title: key, contents: new Uint8Array([key.charCodeAt(0)]) }, host(SES_A));
    }
    first.clock.t += 1;
    const a = await first.store.tag({ key: "a", title: "a2" }, host(SES_A));

    let lists = 0;
    const counting: StorageDriver = Object.assign(Object.create(storage) as StorageDriver, {
      list: (prefix: string) => {
        lists++;
        return storage.list(prefix);
      },
    });
    const second = await fixture({ max: 3 }, counting);
    second.clock.t = first.clock.t + 10;
    expect((await second.store.list()).map((r) => r.key)).toEqual(["a", "c", "b"]);
    const again = await second.store.tag({ key: "a", title: "a3" }, host(SES_A));
    expect(again).toMatchObject({ id: a.id, createdAt: a.createdAt });
    expect([...(await second.store.content(a.id))!.body]).toEqual([97]);
    await second.store.tag({ key: "d", title: "d" }, host(SES_A));
    expect((await second.store.list()).map((r) => r.key)).toEqual(["d", "a", "c"]);
    expect(lists).toBe(1);
  });

  it("round-trips every byte value and text payloads exactly", async () => {
    const { store } = await fixture();
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    const bin = await store.tag({ key: "bin", title: "bin", contents: bytes, contentType: "application/x-test" }, host(SES_A));
    const got = await store.content(bin.id);
    expect(got!.contentType).toBe("application/x-test");
    expect(got!.body).toEqual(bytes);
    const unicode = "héllo ✓ 𝄞\n";
    const txt = await store.tag({ key: "txt", title: "txt", contents: unicode }, host(SES_A));
    expect(text((await store.content(txt.id))!.body)).toBe(unicode);
    expect(await store.content("art_missing")).toBeUndefined();
  });
});

describe("tag_artifact tool", () => {
  const definition = defineArtifacts({
    kinds: {
      report: { description: "A finished report", schema: v.object({ words: v.pipe(v.number(), v.integer()) }) },
      note: { description: "A short note" },
    },
    agentTool: true,
  });

  it("is absent without agentTool or without kinds", () => {
    expect(tagArtifactTool({ kinds: { a: { description: "A" } } })).toBeUndefined();
    expect(tagArtifactTool({ agentTool: false, kinds: { a: { description: "A" } } })).toBeUndefined();
    expect(tagArtifactTool({ agentTool: true })).toBeUndefined();
  });

  it("describes the kinds as a union on kind and data, with an object at the root", () => {
    const tool = tagArtifactTool(definition)!;
    expect(tool.spec.name).toBe("tag_artifact");
    expect(tool.spec.description).toContain("- report: A finished report");
    expect(tool.spec.description).toContain("- note: A short note");
    const schema = tool.spec.inputSchema;
    // Providers reject unions at the root of a tool schema.
    for (const keyword of ["oneOf", "anyOf", "allOf"]) expect(schema).not.toHaveProperty(keyword);
    expect(schema).toMatchObject({ type: "object", required: ["kind", "key", "title", "data"], additionalProperties: false });
    const properties = schema["properties"] as Record<string, Record<string, unknown>>;
    expect(Object.keys(properties)).toEqual(["kind", "key", "title", "data", "contents", "contentType"]);
    expect(properties["kind"]).toMatchObject({ type: "string", enum: ["report", "note"] });
    expect(properties["contents"]).toMatchObject({ type: "string" });
    const branches = properties["data"]!["anyOf"] as Array<Record<string, unknown>>;
    expect(branches).toHaveLength(2);
    expect(branches[0]).toMatchObject({
      type: "object",
      properties: { words: { type: "integer" } },
      required: ["words"],
      description: 'data when kind is "report": A finished report',
    });
    expect(branches[0]).not.toHaveProperty("$schema");
    expect(branches[1]).toEqual({ description: 'data when kind is "note": A short note' });
  });

  it("uses the kind's schema directly when only one kind is declared", () => {
    const tool = tagArtifactTool({ agentTool: true, kinds: { only: { description: "Only", schema: v.object({ a: v.string() }) } } })!;
    const data = (tool.spec.inputSchema["properties"] as Record<string, Record<string, unknown>>)["data"];
    expect(data).toMatchObject({ type: "object", properties: { a: { type: "string" } } });
    expect(data).not.toHaveProperty("anyOf");
  });

  it("tags as the model for the turn's session, ignoring a sessionId in the input", async () => {
    const { open, log } = await fixture();
    const store = open(definition);
    const tool = tagArtifactTool(definition)!;
    const record = await tool.execute(
      { kind: "report", key: "r", title: "R", data: { words: 3 }, contents: "# R", sessionId: SES_B },
      { source: "host", sessionId: SES_A, turnId: "turn_m" },
      store,
    );
    expect(record).toMatchObject({ source: "model", sessionId: SES_A, turnId: "turn_m", hasContent: true });
    expect((await taggedEvents(log, SES_A))[0]!.data["artifact"]).toMatchObject({ source: "model", kind: "report" });
    expect(await taggedEvents(log, SES_B)).toEqual([]);
    for (const input of [null, "x", [], { kind: "memo", key: "m", title: "M", data: {} }, { kind: "report", key: "r", title: "R", data: { words: 1.5 } }]) {
      expect((await rejection(tool.execute(input, host(SES_A), store))).status, JSON.stringify(input)).toBe(400);
    }
  });
});

describe("validateArtifactsDefinition", () => {
  it("accepts a valid declaration", () => {
    expect(validateArtifactsDefinition({ kinds: { a: { description: "A", schema: v.string() } }, agentTool: true, max: 10 })).toEqual([]);
    expect(validateArtifactsDefinition({})).toEqual([]);
  });

  it("reports agentTool without kinds, a bad max and bad kinds as errors", () => {
    const codes = (def: unknown) => validateArtifactsDefinition(def as ArtifactsDefinition, "bot/artifacts.ts").map((d) => [d.severity, d.code, d.file]);
    expect(codes({ agentTool: true })).toEqual([["error", "artifacts_agent_tool_without_kinds", "bot/artifacts.ts"]]);
    expect(codes({ agentTool: true, kinds: {} })).toEqual([["error", "artifacts_agent_tool_without_kinds", "bot/artifacts.ts"]]);
    for (const max of [0, -3, 2.5, "10", null]) {
      expect(codes({ max }), String(max)).toEqual([["error", "invalid_artifacts_max", "bot/artifacts.ts"]]);
    }
    expect(codes({ kinds: { a: { description: "" } } })).toEqual([["error", "invalid_artifact_kind", "bot/artifacts.ts"]]);
    expect(codes({ kinds: { a: { description: "A", schema: { type: "string" } } } })).toEqual([["error", "invalid_artifact_kind", "bot/artifacts.ts"]]);
    expect(codes({ kinds: [] })).toEqual([["error", "invalid_artifacts", "bot/artifacts.ts"]]);
    expect(validateArtifactsDefinition({ agentTool: true })[0]!.message).toMatch(/at least one declared kind/);
  });
});

// --- over HTTP: in-process and a real loopback server ---

const principals: Record<string, AuthContext> = {
  alice: { authenticator: "test", principalId: "alice", principalType: "user" },
  bob: { authenticator: "test", principalId: "bob", principalType: "user" },
};
const as = (name: string) => ({ headers: { authorization: `Bearer ${name}` } });
const base = "/hello";

const httpArtifacts = defineArtifacts({
  kinds: {
    report: { description: "A finished report", schema: v.object({ words: v.number() }) },
    file: { description: "A file" },
  },
  agentTool: true,
  max: 3,
});

const saveBytes = defineTool({
  description: "Saves bytes as an artifact of this session",
  inputSchema: v.object({ key: v.string(), size: v.number() }),
  async execute(input, ctx) {
    const bytes = new Uint8Array(input.size).map((_, i) => (i * 31) % 256);
    const record = await ctx.artifacts.tag({ kind: "file", key: input.key, title: "Bytes", data: { size: input.size }, contents: bytes, contentType: "image/png" });
    return record.id;
  },
});

function artifactHost(overrides: Partial<AgentHostOptions> = {}): AgentHostOptions {
  return helloOptions({
    agents: [
      {
        slug: "hello",
        project: project({ artifacts: httpArtifacts, tools: { save_bytes: saveBytes as ToolDefinition } }),
        storage: createMemoryStorage(),
      },
    ],
    auth: { policies: [bearerAuth((token) => principals[token] ?? null)] },
    ...overrides,
  });
}

interface ListedArtifact {
  id: string;
  kind: string;
  key: string;
  title: string;
  data: unknown;
  source: string;
  sessionId: string;
  hasContent: boolean;
}

const toolLine = (name: string, input: unknown) => `/tool ${name} ${JSON.stringify(input)}`;

describeHost("artifact routes", () => artifactHost(), (target) => {
  async function turn(who: string, message: string): Promise<{ sessionId: string; events: TestEvent[] }> {
    const response = await target().fetch(`${base}/v1/session`, { method: "POST", ...withJson(as(who), { message }) });
    expect(response.status).toBe(200);
    const { sessionId } = (await response.json()) as { sessionId: string };
    const events = await eventually(async () => {
      const all = await allEvents(target(), base, sessionId, who);
      return all.some((e) => e.type === "session.waiting") ? all : undefined;
    }, 5000, "session.waiting");
    return { sessionId, events };
  }

  async function list(who: string, query = ""): Promise<ListedArtifact[]> {
    const response = await target().fetch(`${base}/v1/artifacts${query}`, as(who));
    expect(response.status).toBe(200);
    return ((await response.json()) as { artifacts: ListedArtifact[] }).artifacts;
  }

  it("the model tags through tag_artifact: artifact.tagged lands on its session and turn, and the list shows it", async () => {
    const input = { kind: "report", key: "weekly", title: "Weekly", data: { words: 3 }, contents: "# Weekly\n", contentType: "text/markdown" };
    const { sessionId, events } = await turn("alice", toolLine("tag_artifact", input));
    const tagged = events.filter((e) => e.type === "artifact.tagged");
    expect(tagged).toHaveLength(1);
    const turnId = events.find((e) => e.type === "turn.started")!.turnId;
    expect(tagged[0]!.turnId).toBe(turnId);
    const artifact = tagged[0]!.data["artifact"] as ListedArtifact;
    expect(artifact).toEqual({ id: expect.stringMatching(/^art_/), kind: "report", key: "weekly", title: "Weekly", data: { words: 3 }, source: "model" });
    const result = events.find((e) => e.type === "action.result")!;
    expect(result.data).toMatchObject({ toolName: "tag_artifact", isError: false });
    const listed = await list("alice");
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: artifact.id, sessionId, source: "model", hasContent: true });

    const download = await target().fetch(`${base}/v1/artifacts/${artifact.id}/content`, as("alice"));
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("text/markdown");
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="weekly"');
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await download.text()).toBe("# Weekly\n");
  });

  it("host code tags bytes through the tool context; the download is exact and never inline", async () => {
    const key = '../évil "name".png';
    const { sessionId, events } = await turn("alice", toolLine("save_bytes", { key, size: 1000 }));
    const artifact = events.find((e) => e.type === "artifact.tagged")!.data["artifact"] as ListedArtifact;
    expect(artifact).toMatchObject({ kind: "file", key, source: "host", data: { size: 1000 } });
    expect(events.find((e) => e.type === "artifact.tagged")!.turnId).toBe(events.find((e) => e.type === "turn.started")!.turnId);
    const download = await target().fetch(`${base}/v1/artifacts/${artifact.id}/content`, as("alice"));
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    const disposition = download.headers.get("content-disposition")!;
    expect(disposition).toMatch(/^attachment; filename="[A-Za-z0-9._-]+"$/);
    expect(disposition).toBe('attachment; filename="vil_name_.png"');
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(new Uint8Array(1000).map((_, i) => (i * 31) % 256));
    expect((await list("alice", `?sessionId=${sessionId}`)).map((a) => a.id)).toEqual([artifact.id]);
  });

  it("a rejected tag is an error result to the model; the turn continues and nothing is stored", async () => {
    const bad = toolLine("tag_artifact", { kind: "report", key: "r", title: "R", data: { words: "many" } });
    const { events } = await turn("alice", `${bad}\n/reply after`);
    const result = events.find((e) => e.type === "action.result")!;
    expect(result.data).toMatchObject({ toolName: "tag_artifact", isError: true });
    expect(events.find((e) => e.type === "message.completed" && e.data["finishReason"] === "stop")!.data["text"]).toBe("after");
    expect(events.some((e) => e.type === "artifact.tagged")).toBe(false);
    expect(await list("alice")).toEqual([]);
  });

  it("evicts the oldest-updated artifact at the cap (max 3)", async () => {
    const tags = ["r1", "r2", "r3", "r4"].map((key) => toolLine("tag_artifact", { kind: "file", key, title: key, data: null, contents: key }));
    const { events } = await turn("alice", tags.join("\n"));
    const ids = events.filter((e) => e.type === "artifact.tagged").map((e) => (e.data["artifact"] as ListedArtifact).id);
    expect(ids).toHaveLength(4);
    expect((await list("alice")).map((a) => a.key)).toEqual(["r4", "r3", "r2"]);
    const evicted = await target().fetch(`${base}/v1/artifacts/${ids[0]}/content`, as("alice"));
    expect(evicted.status).toBe(404);
    expect(await evicted.json()).toMatchObject({ ok: false, error: "artifact_not_found" });
    expect(await (await target().fetch(`${base}/v1/artifacts/${ids[1]}/content`, as("alice"))).text()).toBe("r2");
  });

  it("filters by kind, sessionId and limit, newest-updated first", async () => {
    const first = await turn("alice", [toolLine("tag_artifact", { kind: "file", key: "f1", title: "f1", data: 1 }), toolLine("tag_artifact", { kind: "report", key: "p1", title: "p1", data: { words: 1 } })].join("\n"));
    const second = await turn("alice", toolLine("tag_artifact", { kind: "file", key: "f2", title: "f2", data: 2 }));
    expect((await list("alice")).map((a) => a.key)).toEqual(["f2", "p1", "f1"]);
    expect((await list("alice", "?kind=file")).map((a) => a.key)).toEqual(["f2", "f1"]);
    expect((await list("alice", `?sessionId=${first.sessionId}`)).map((a) => a.key)).toEqual(["p1", "f1"]);
    expect((await list("alice", `?sessionId=${second.sessionId}&kind=report`)).map((a) => a.key)).toEqual([]);
    expect((await list("alice", "?limit=1")).map((a) => a.key)).toEqual(["f2"]);
    expect((await list("alice", "?kind=nothing")).map((a) => a.key)).toEqual([]);
    for (const query of ["?limit=0", "?limit=-1", "?limit=abc", "?limit=1.5", "?limit=", "?kind="]) {
      const response = await target().fetch(`${base}/v1/artifacts${query}`, as("alice"));
      expect(response.status, query).toBe(400);
      expect(await response.json()).toMatchObject({ ok: false, error: "invalid_request" });
    }
  });

  it("shows artifacts only to callers who may read their session; others get 404", async () => {
    const alice = await turn("alice", toolLine("tag_artifact", { kind: "file", key: "secret", title: "S", data: null, contents: "s3cret" }));
    const bob = await turn("bob", toolLine("tag_artifact", { kind: "file", key: "bobs", title: "B", data: null }));
    const aliceArtifact = alice.events.find((e) => e.type === "artifact.tagged")!.data["artifact"] as ListedArtifact;
    const bobArtifact = bob.events.find((e) => e.type === "artifact.tagged")!.data["artifact"] as ListedArtifact;
    expect((await list("alice")).map((a) => a.id)).toEqual([aliceArtifact.id]);
    expect((await list("bob")).map((a) => a.id)).toEqual([bobArtifact.id]);
    expect(await list("bob", `?sessionId=${alice.sessionId}`)).toEqual([]);
    // The limit counts what the caller sees, not what others tagged since.
    expect((await list("alice", "?limit=1")).map((a) => a.id)).toEqual([aliceArtifact.id]);
    const cases: Array<[string, string]> = [
      [`/v1/artifacts/${aliceArtifact.id}/content`, "bob"],
      [`/v1/artifacts/${bobArtifact.id}/content`, "bob"], // no content
      ["/v1/artifacts/art_doesnotexist/content", "alice"],
      ["/v1/artifacts/..%2F..%2Fsessions/content", "alice"],
      ["/v1/artifacts/sessions/content", "alice"],
    ];
    for (const [path, who] of cases) {
      const response = await target().fetch(`${base}${path}`, as(who));
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ ok: false, error: "artifact_not_found" });
    }
    expect((await target().fetch(`${base}/v1/artifacts`)).status).toBe(401);
    expect((await target().fetch(`${base}/v1/artifacts/${aliceArtifact.id}/content`)).status).toBe(401);
  });
});

describeHost("artifact routes for wide callers (--dev on loopback)", () => artifactHost({ dev: true, auth: {} }), (target) => {
  it("lists and serves artifacts of every session, including channel sessions", async () => {
    const sent = await target().host.send(toolLine("tag_artifact", { kind: "file", key: "c", title: "C", data: null, contents: "from a channel" }), {
      channel: "chat",
      continuationToken: "c1",
    });
    const artifacts = await eventually(async () => {
      const body = (await (await target().fetch(`${base}/v1/artifacts`)).json()) as { artifacts: ListedArtifact[] };
      return body.artifacts.length > 0 ? body.artifacts : undefined;
    }, 5000, "the channel's artifact");
    expect(artifacts).toEqual([expect.objectContaining({ key: "c", sessionId: sent.sessionId, source: "model" })]);
    const download = await target().fetch(`${base}/v1/artifacts/${artifacts[0]!.id}/content`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(await download.text()).toBe("from a channel");
  });
});

function withJson(init: { headers: Record<string, string> }, body: unknown): RequestInit {
  return { headers: { ...init.headers, "content-type": "application/json" }, body: JSON.stringify(body) };
}

async function allEvents(target: HostUnderTest, prefix: string, sessionId: string, who: string): Promise<TestEvent[]> {
  const response = await target.fetch(`${prefix}/v1/session/${sessionId}/events`, as(who));
  const body = await response.text();
  return body.split("\n").filter(Boolean).map((line) => JSON.parse(line) as TestEvent);
}

describeHost(
  "artifact routes, a page at a time",
  () =>
    artifactHost({
      agents: [{ slug: "hello", project: project({ artifacts: defineArtifacts({ kinds: { file: { description: "A file" } }, agentTool: true, max: 50 }) }), storage: createMemoryStorage() }],
    }),
  (target) => {
    async function turn(who: string, message: string): Promise<void> {
      const response = await target().fetch(`${base}/v1/session`, { method: "POST", ...withJson(as(who), { message }) });
      expect(response.status).toBe(200);
      const { sessionId } = (await response.json()) as { sessionId: string };
      await eventually(async () => {
        const all = await allEvents(target(), base, sessionId, who);
        return all.some((e) => e.type === "session.waiting") ? all : undefined;
      }, 5000, "session.waiting");
    }

    async function list(who: string, query = ""): Promise<ListedArtifact[]> {
      const response = await target().fetch(`${base}/v1/artifacts${query}`, as(who));
      expect(response.status).toBe(200);
      return ((await response.json()) as { artifacts: ListedArtifact[] }).artifacts;
    }

    it("pages with nextCursor over what the caller may see, newest first, no repeat or gap while more are tagged", async () => {
      const tags = (prefix: string, count: number) =>
        Array.from({ length: count }, (_, i) => toolLine("tag_artifact", { kind: "file", key: `${prefix}${i}`, title: "t", data: i })).join("\n");
      await turn("alice", tags("a", 7));
      await turn("bob", tags("b", 3));
      const everything = (await list("alice", "?limit=500")).map((a) => a.key);
      expect(everything).toHaveLength(7);
      const page = async (query: string) => {
        const response = await target().fetch(`${base}/v1/artifacts${query}`, as("alice"));
        expect(response.status).toBe(200);
        return (await response.json()) as { artifacts: ListedArtifact[]; nextCursor: string | null };
      };
      const walked: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const body = await page(`?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
        expect(body.artifacts.length).toBeLessThanOrEqual(3);
        walked.push(...body.artifacts.map((a) => a.key));
        cursor = body.nextCursor;
        // Tagged mid-walk: newer than the cursor, so this walk does not see it.
        if (pages++ === 0) await turn("alice", tags("late", 1));
      } while (cursor !== null && pages < 20);
      expect(walked).toEqual(everything);
      expect((await page("?limit=500")).artifacts[0]!.key).toBe("late0");
      expect((await page("?limit=100000")).nextCursor).toBeNull();
      for (const bad of ["?cursor=", "?cursor=%%", "?cursor=bm9wZQ", "?limit=2&cursor=AAAA"]) {
        const response = await target().fetch(`${base}/v1/artifacts${bad}`, as("alice"));
        expect(response.status, bad).toBe(400);
        expect(await response.json()).toMatchObject({ ok: false, error: "invalid_request", message: expect.stringMatching(/cursor/) });
      }
    });

  },
);
