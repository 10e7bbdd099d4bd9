/**
 * The one router of docs/design/routing.md, on its own: pattern semantics (parameters, the rest,
 * trailing slashes in tolerant tables, exact paths in strict ones), table order, HEAD as GET, and
 * the methods a known path reports for a 405.
 */
import { describe, expect, test } from "vitest";
import { type RouterEntry, createRouter } from "../src/http/router.ts";

const entry = (method: RouterEntry["method"], path: string, extra: Partial<RouterEntry> = {}): RouterEntry => ({ method, path, ...extra });

describe("tolerant tables (agent routes)", () => {
  const items = entry("GET", "/v1/items/new");
  const item = entry("GET", "/v1/items/:id");
  const remove = entry("DELETE", "/v1/items/:id");
  const file = entry("GET", "/v1/files/:name.json");
  const rest = entry("POST", "/v1/hooks/*");
  const router = createRouter([items, item, remove, file, rest]);

  test("the first route in table order wins; parameters stay encoded", () => {
    expect(router.match("GET", "/v1/items/new")).toEqual({ route: items, params: {} });
    expect(router.match("GET", "/v1/items/a%20b")).toEqual({ route: item, params: { id: "a%20b" } });
    expect(router.match("DELETE", "/v1/items/x")).toEqual({ route: remove, params: { id: "x" } });
  });

  test("a parameter is one segment; `.` is literal; `*` takes the rest, empty included", () => {
    expect(router.match("GET", "/v1/items/a/b")).toBeUndefined();
    expect(router.match("GET", "/v1/files/notes.json")).toEqual({ route: file, params: { name: "notes" } });
    expect(router.match("GET", "/v1/files/notesxjson")).toBeUndefined();
    for (const path of ["/v1/hooks", "/v1/hooks/", "/v1/hooks/a/b"]) expect(router.match("POST", path)?.route).toBe(rest);
  });

  test("trailing slashes are ignored", () => {
    expect(router.match("GET", "/v1/items/x/")?.route).toBe(item);
    expect(router.match("GET", "/v1/items/x//")?.route).toBe(item);
  });

  test("HEAD answers as GET, and a known path with another method reports its methods", () => {
    expect(router.match("HEAD", "/v1/items/x")?.route).toBe(item);
    expect(router.match("PUT", "/v1/items/x")).toEqual({ allow: ["GET", "HEAD", "DELETE"] });
    expect(router.match("HEAD", "/v1/hooks/x")).toEqual({ allow: ["POST"] });
    expect(router.match("GET", "/v1/nothing")).toBeUndefined();
  });
});

describe("strict tables (host routes)", () => {
  const health = entry("GET", "/v1/health");
  const docs = entry("GET", "/docs/*");
  const root = entry("GET", "/");
  const webhooks = entry("POST", "/v1/webhooks", { everyMethod: true });
  const router = createRouter([health, docs, root, webhooks], { strict: true });

  test("paths match exactly", () => {
    expect(router.match("GET", "/v1/health")?.route).toBe(health);
    expect(router.match("GET", "/v1/health/")?.route).toBeUndefined();
    expect(router.match("GET", "/")?.route).toBe(root);
    expect(router.match("GET", "//")?.route).toBeUndefined();
    for (const path of ["/docs", "/docs/", "/docs/guide/x"]) expect(router.match("GET", path)?.route).toBe(docs);
    expect(router.match("GET", "/docsx")?.route).toBeUndefined();
  });

  test("an every-method route takes any method", () => {
    for (const method of ["GET", "POST", "DELETE", "OPTIONS"]) expect(router.match(method, "/v1/webhooks")?.route).toBe(webhooks);
  });
});
