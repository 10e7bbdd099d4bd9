/**
 * Serving the playground SPA (docs/guide/http-api.md "Route layout"): the page at
 * `<base>/playground` with the agent's base path filled in and a confining CSP, its assets, the
 * 404s around them, single mode, and `readPlaygroundSite()` over a folder and over the package's
 * own files.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readPlaygroundSite } from "../loader/playground-site.ts";
import type { PlaygroundSite } from "../src/http/site-types.ts";
import { writeFiles } from "./_cli-io.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { describeHost, helloOptions, project } from "./_harness.ts";

const site: PlaygroundSite = {
  index:
    '<!doctype html><meta name="agent-serve-base" content="%AGENT_SERVE_BASE%"><script type="module" src="%AGENT_SERVE_BASE%/playground/assets/app.js"></script>',
  assets: {
    "app.js": { body: "export const app = 1;\n", type: "text/javascript; charset=utf-8" },
    "style.css": { body: "body{margin:0}\n", type: "text/css; charset=utf-8" },
  },
};

describeHost("playground (multi mode)", () => helloOptions({ playground: site }), (target) => {
  it("serves the page with the agent's base path and a confining CSP", async () => {
    for (const path of ["/hello/playground", "/hello/playground/", "/hello/playground?sessionId=ses_x"]) {
      const response = await target().fetch(path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      const page = await response.text();
      expect(page).toContain('<meta name="agent-serve-base" content="/hello">');
      expect(page).toContain('src="/hello/playground/assets/app.js"');
      expect(page).not.toContain("%AGENT_SERVE_BASE%");
    }
  });

  it("serves assets with their content type, HEAD included", async () => {
    const script = await target().fetch("/hello/playground/assets/app.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toBe("export const app = 1;\n");
    const head = await target().fetch("/hello/playground/assets/style.css", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  it("answers 404 not_found for unknown files, traversal, inherited names and other paths", async () => {
    for (const path of [
      "/hello/playground/assets/missing.js",
      "/hello/playground/assets/%2e%2e%2fapp.js",
      "/hello/playground/assets/__proto__",
      "/hello/playground/assets/toString",
      "/hello/playground/app.js",
      "/hello/playground/assets/",
      "/other/playground",
    ]) {
      const response = await target().fetch(path);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ ok: false, error: "not_found" });
    }
  });

  it("the agent's own URL (the banner's) redirects to its playground", async () => {
    for (const path of ["/hello", "/hello/"]) {
      const response = await target().fetch(path, { redirect: "manual" });
      expect(response.status, path).toBe(302);
      expect(response.headers.get("location"), path).toBe("/hello/playground");
    }
    const followed = await target().fetch("/hello/playground");
    expect(await followed.text()).toContain('content="/hello"');
    expect((await target().fetch("/hello", { method: "POST", redirect: "manual" })).status).toBe(404);
  });

  it("leaves other methods to the agent's routes, which know no such route", async () => {
    const response = await target().fetch("/hello/playground", { method: "POST" });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ ok: false, error: "not_found" });
  });

  it("the index routes link each agent's playground", async () => {
    const index = await target().fetch("/");
    const page = await index.text();
    expect(page).toContain('href="/hello/playground"');
    // Inert: the policy forbids scripts and requests.
    expect(page).not.toContain("<script");
    expect(index.headers.get("content-security-policy")).toMatch(/^default-src 'none';/);
    expect(index.headers.get("x-content-type-options")).toBe("nosniff");
    const { agents } = (await (await target().fetch("/v1/agents")).json()) as { agents: Array<{ playgroundUrl: string }> };
    expect(agents[0]?.playgroundUrl).toMatch(/^http:\/\/[^/]+\/hello\/playground$/);
  });

  it("session creation deep-links the session in the playground", async () => {
    const response = await target().fetch("/hello/v1/session", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "/reply hi" }),
    });
    const body = (await response.json()) as { sessionId: string; playgroundUrl: string };
    expect(body.playgroundUrl).toMatch(new RegExp(`/hello/playground\\?sessionId=${body.sessionId}$`));
    expect((await target().fetch(new URL(body.playgroundUrl).pathname + new URL(body.playgroundUrl).search)).status).toBe(200);
  });
});

describeHost(
  "agent index with markup in the agent's name",
  () => helloOptions({ agents: [{ slug: "hello", project: project({ name: "<b>Bold</b>", description: '<img src=x onerror="alert(1)">' }), storage: createMemoryStorage() }] }),
  (target) => {
    it("shows the name and description as text", async () => {
      const page = await (await target().fetch("/")).text();
      expect(page).toContain("&#60;b&#62;Bold&#60;/b&#62;");
      expect(page).toContain("&#60;img src=x onerror=&#34;alert(1)&#34;&#62;");
      expect(page).not.toContain("<img");
    });
  },
);

describeHost("playground (single mode)", () => helloOptions({ mode: "single", playground: site }), (target) => {
  it("serves the page at /playground with an empty base path", async () => {
    const page = await (await target().fetch("/playground")).text();
    expect(page).toContain('<meta name="agent-serve-base" content="">');
    expect(page).toContain('src="/playground/assets/app.js"');
    expect((await target().fetch("/playground/assets/app.js")).status).toBe(200);
    expect((await target().fetch("/v1/health")).status).toBe(200);
  });

  it("redirects / to the playground", async () => {
    const response = await target().fetch("/", { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/playground");
  });
});

describeHost("playground: true without files", () => helloOptions({ playground: true }), (target) => {
  it("keeps the index routes; the page is 404 because the core reads no files", async () => {
    expect((await target().fetch("/")).status).toBe(200);
    expect((await target().fetch("/hello/playground")).status).toBe(404);
  });
});

describeHost("--no-playground with files", () => helloOptions({ playground: false }), (target) => {
  it("removes the page and its assets", async () => {
    expect((await target().fetch("/hello/playground")).status).toBe(404);
    expect((await target().fetch("/hello/playground/assets/app.js")).status).toBe(404);
    expect((await target().fetch("/hello", { redirect: "manual" })).status).toBe(404);
  });
});

describe("readPlaygroundSite", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-serve-playground-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads index.html and the served kinds of asset only", async () => {
    writeFiles(dir, {
      "index.html": "<!doctype html>%AGENT_SERVE_BASE%",
      "assets/app.js": "1",
      "assets/style.css": "2",
      "assets/logo.svg": "<svg/>",
      "assets/notes.md": "private",
      "assets/.app.js.swp": "editor",
    });
    const read = await readPlaygroundSite({ root: dir });
    expect(read.index).toBe("<!doctype html>%AGENT_SERVE_BASE%");
    // The folder's own files of the served kinds, plus the libraries the page imports (vendored).
    expect(Object.keys(read.assets).sort()).toEqual(["app.js", "logo.svg", "style.css", "vendor-marked.js", "vendor-purify.js"]);
    expect(read.assets["logo.svg"]?.type).toBe("image/svg+xml");
    expect(read.assets["vendor-marked.js"]?.body).toContain("marked");
    expect(read.assets["vendor-purify.js"]?.body).not.toMatch(/sourceMappingURL/);
  });

  it("the package's own site references only files it ships", async () => {
    const own = await readPlaygroundSite();
    expect(own.index).toContain('<meta name="agent-serve-base" content="%AGENT_SERVE_BASE%">');
    const referenced = [...own.index.matchAll(/%AGENT_SERVE_BASE%\/playground\/assets\/([^"]+)"/g)].map((m) => m[1]!);
    expect(referenced.length).toBeGreaterThan(0);
    for (const name of referenced) expect(own.assets, name).toHaveProperty(name);
    // Every module import between assets resolves to a shipped file too.
    for (const [name, asset] of Object.entries(own.assets)) {
      if (!name.endsWith(".js")) continue;
      for (const [, imported] of String(asset.body).matchAll(/from\s+"\.\/([^"]+)"/g)) expect(own.assets, `${name} imports ${imported}`).toHaveProperty(imported!);
    }
  });
});
