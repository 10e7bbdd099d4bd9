/**
 * The `/docs` documentation site: Markdown rendered on the Node side, served by the core in both
 * layouts without auth, removed by `docs: false` / `--no-docs`, and served alone by `docs`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderDocsSite } from "../loader/docs-site.ts";
import { createHost } from "../src/host/host.ts";
import type { AgentHostOptions } from "../src/host/types.ts";
import type { DocsSite } from "../src/http/site-types.ts";
import { cliEnv, finished, killAfterEach, spawnCli, startServe, waitForOutput } from "./_cli.ts";

const scratch = mkdtempSync(join(tmpdir(), "agent-serve-docs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const project = { name: "Hello", agent: { model: "scripted" }, instructions: "Be brief.", diagnostics: [] };

let site: DocsSite;
beforeAll(async () => {
  const root = join(scratch, "docs");
  mkdirSync(join(root, "guide"), { recursive: true });
  mkdirSync(join(root, "design"), { recursive: true });
  writeFileSync(
    join(root, "guide", "getting-started.md"),
    [
      "# Getting started",
      "",
      "See [the CLI](cli.md), [storage](../design/storage.md#layout), [an anchor](#top) and [npm](https://www.npmjs.com/).",
      "",
      "<script>alert(1)</script>",
      "",
      "Inline <img src=x onerror=alert(2)> too.",
    ].join("\n"),
  );
  writeFileSync(join(root, "guide", "cli.md"), "# Command line\n\nText.\n");
  writeFileSync(join(root, "design", "storage.md"), "# Storage\n\n## Layout\n");
  site = await renderDocsSite({ root });
});

/** What a page shows beside the navigation. */
function mainOf(html: string): string {
  return /<main>([\s\S]*)<\/main>/.exec(html)?.[1] ?? "";
}

function hostWith(options: Partial<AgentHostOptions>) {
  return createHost({ agents: [{ slug: "hello", project }], recoverOnStart: false, ...options });
}

describe("rendering", () => {
  it("renders each page with its heading inside one layout whose nav lists every page", () => {
    expect(Object.keys(site.pages).sort()).toEqual(["", "design/storage", "guide/cli", "guide/getting-started"]);
    const page = site.pages["guide/getting-started"]!;
    expect(page.title).toBe("Getting started");
    expect(page.html).toContain("<h1>Getting started</h1>");
    expect(page.html).toContain("<title>Getting started</title>");
    for (const slug of ["guide/getting-started", "guide/cli", "design/storage"]) {
      for (const html of Object.values(site.pages).map((p) => p.html)) expect(html).toMatch(new RegExp(`<a href="/docs/${slug}"( aria-current="page")?>`));
    }
    // The current page is marked in the nav, and only it.
    expect(page.html).toContain('<a href="/docs/guide/getting-started" aria-current="page">');
    expect(page.html.match(/aria-current="page"/g)).toHaveLength(1);
    expect(site.pages["guide/cli"]!.html).toContain('<a href="/docs/guide/cli" aria-current="page">');
    expect(page.html).toMatch(/<h2>Guide<\/h2>.*<h2>Design notes<\/h2>/s);
    // The guide's known order puts getting-started before cli.
    expect(page.html.indexOf('href="/docs/guide/getting-started"')).toBeLessThan(page.html.indexOf('href="/docs/guide/cli"'));
  });

  it("a root with index.md gets it as the landing page, its links resolved from docs/, and searchable (issue 35)", async () => {
    const root = join(scratch, "docs-with-index");
    mkdirSync(join(root, "guide"), { recursive: true });
    writeFileSync(join(root, "guide", "cli.md"), "# Command line\n");
    writeFileSync(join(root, "index.md"), "# Welcome\n\nStart with [the CLI](guide/cli.md#flags).\n\n<b>raw</b>\n");
    const withIndex = await renderDocsSite({ root });
    const home = withIndex.pages[""]!;
    expect(home.title).toBe("agent-serve documentation");
    expect(home.html).toContain("<main><h1>Welcome</h1>");
    expect(home.html).toContain('<a href="/docs/guide/cli#flags">the CLI</a>');
    expect(home.html).toContain("&#60;b&#62;raw&#60;/b&#62;");
    // The body is the page, not a second copy of the nav's list.
    expect(mainOf(home.html)).not.toContain("<h2>Guide</h2>");
    expect(withIndex.search!.index.find((entry) => entry.slug === "")?.text).toContain("Start with the CLI");
    // Without an index.md the landing page lists the pages.
    expect(mainOf(site.pages[""]!.html)).toContain("<h2>Guide</h2>");
  });

  it("the package's own landing page introduces agent-serve: the two commands, a session stream, links onward", async () => {
    const main = mainOf((await renderDocsSite()).pages[""]!.html);
    expect(main).toMatch(/^<h1>agent-serve<\/h1>/);
    expect(main).toContain("npm install\nnpx agent-serve serve examples/hello");
    expect(main).toContain("{&quot;type&quot;:&quot;message.completed&quot;");
    for (const href of ["/docs/guide/getting-started", "/docs/guide/http-api", "/docs/guide/agent-projects", "/docs/reference/routes", "/docs/design/foundation"]) {
      expect(main).toContain(`href="${href}"`);
    }
    expect(main).not.toContain(".md");
    expect(main).not.toMatch(/<h2>(Guide|Design notes|Reference)<\/h2>/);
  });

  it("rewrites relative Markdown links to /docs/<slug> and leaves other links alone", () => {
    const html = site.pages["guide/getting-started"]!.html;
    expect(html).toContain('<a href="/docs/guide/cli">the CLI</a>');
    expect(html).toContain('<a href="/docs/design/storage#layout">storage</a>');
    expect(html).toContain('<a href="#top">an anchor</a>');
    expect(html).toContain('<a href="https://www.npmjs.com/">npm</a>');
    expect(html).not.toContain(".md");
  });

  it("escapes raw HTML in the Markdown instead of passing it through", () => {
    const html = site.pages["guide/getting-started"]!.html;
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect(html).toContain("&#60;img src=x onerror=alert(2)&#62;");
  });

  it("renders the package's own guide and design notes", async () => {
    const own = await renderDocsSite();
    for (const slug of ["", "guide/getting-started", "guide/http-api", "guide/agent-projects", "guide/cli", "design/storage", "design/foundation"]) {
      expect(own.pages[slug]?.html).toContain("<nav>");
    }
    expect(own.pages["guide/http-api"]!.title).toBe("HTTP API");
    expect(own.pages["design/storage"]!.html).toContain("<h1>Storage</h1>");
    // The channels guide sits in the nav after the HTTP API page, and its links resolve in the site.
    const channels = own.pages["guide/channels"]!;
    expect(channels.title).toBe("Custom channels");
    const nav = own.pages[""]!.html;
    expect(nav.indexOf('href="/docs/guide/http-api"')).toBeLessThan(nav.indexOf('href="/docs/guide/channels"'));
    expect(own.pages["guide/http-api"]!.html).toContain('<a href="/docs/guide/channels">channels</a>');
    expect(own.pages["design/channels"]!.html).toContain("<h1>Channels: decisions</h1>");
  });

  it("generates the reference from the code's tables: every route, event type, defineAgent key and module", async () => {
    const own = await renderDocsSite();
    const { agentRoutes } = await import("../src/http/routes/index.ts");
    const routes = own.pages["reference/routes"]!.html;
    for (const route of agentRoutes) expect(routes).toContain(`<td>${route.method}</td>\n<td><code>${route.path}</code></td>`);
    for (const path of ["/v1/dev/evals/runs", "/v1/dev/schedules/:scheduleId", "/v1/internal/reminders/:reminderId/fire", "/v1/chat"]) expect(routes).toContain(`<code>${path}</code>`);
    const events = own.pages["reference/events"]!.html;
    for (const type of ["session.started", "turn.completed", "action.approval_requested", "artifact.tagged", "agent.bound"]) expect(events).toContain(`<code>${type}</code>`);
    const config = own.pages["reference/agent-config"]!.html;
    for (const key of ["runtime", "local", "hosting", "builtinTools", "prices", "concurrency", "tools"]) expect(config).toContain(`<code>${key}</code>`);
    const modules = own.pages["reference/modules"]!.html;
    for (const name of ["defineHook", "bearerAuth", "localDevStrict", "allowAll", "defineTool"]) expect(modules).toContain(`<code>${name}</code>`);
    expect(modules).toContain("<code>agent-serve/channels</code>");
    expect(modules).toContain("<code>agent-serve/hooks</code>");
  });
});

describe("search, navigation and small screens", () => {
  it("answers /docs/search with ranked, highlighted, escaped results from every page", async () => {
    const own = await renderDocsSite();
    const host = hostWith({ docs: own });
    try {
      const response = await host.request("/docs/search?q=EventSource%20Last-Event-ID");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
      const html = await response.text();
      expect(html).toMatch(/<h1>\d+ results? for “EventSource Last-Event-ID”<\/h1>/);
      expect(html).toContain('<a href="/docs/guide/http-api">HTTP API</a>');
      expect(html).toContain("<mark>EventSource</mark>");
      expect(html).toContain('value="EventSource Last-Event-ID"');
      const hostile = await (await host.request("/docs/search?q=%3Cscript%3Ealert(1)%3C/script%3E")).text();
      expect(hostile).not.toContain("<script>alert");
      expect(hostile).toContain("&#60;script&#62;");
      expect(await (await host.request("/docs/search?q=zzqqxxnothing")).text()).toContain("No page has every word");
    } finally {
      await host.close();
    }
  });

  it("every page has the search form, and the layout stacks on a phone", () => {
    for (const page of Object.values(site.pages)) {
      expect(page.html).toContain('<form role="search" action="/docs/search" method="get">');
      expect(page.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(page.html).toMatch(/@media \(max-width:48rem\)\{body\{display:block\}/);
    }
  });
});

describe.each(["multi", "single"] as const)("the site in %s mode", (mode) => {
  it("answers /docs, /docs/ and /docs/<page> as strict HTML without auth; an unknown page is 404", async () => {
    const host = hostWith({ mode, docs: site });
    try {
      for (const [path, heading] of [["/docs", "agent-serve documentation"], ["/docs/", "agent-serve documentation"], ["/docs/guide/cli", "Command line"]] as const) {
        // A non-loopback caller: the default auth chain would refuse it on an agent route.
        const response = await host.request(path, {}, { ip: "203.0.113.9" });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(response.headers.get("x-content-type-options")).toBe("nosniff");
        expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'");
        expect(await response.text()).toContain(`<h1>${heading}</h1>`);
      }
      const missing = await host.request("/docs/guide/nope");
      expect(missing.status).toBe(404);
      expect(missing.headers.get("content-type")).toContain("application/json");
      expect(await missing.json()).toMatchObject({ ok: false, error: "not_found" });
      const refused = await host.request(mode === "multi" ? "/hello/v1/sessions" : "/v1/sessions", {}, { ip: "203.0.113.9" });
      expect(refused.status).toBeGreaterThanOrEqual(401);
      expect(refused.status).toBeLessThanOrEqual(403);
    } finally {
      await host.close();
    }
  });

  it("docs: false (and no docs option) leaves /docs unmounted", async () => {
    for (const docs of [false, undefined] as const) {
      const host = hostWith({ mode, docs });
      try {
        const response = await host.request("/docs");
        expect(response.status).toBe(404);
        expect(await response.json()).toMatchObject({ ok: false });
      } finally {
        await host.close();
      }
    }
  });
});

describe("command line", () => {
  const running = killAfterEach();
  const env = cliEnv(join(scratch, "config"));

  it("`docs` serves the site alone on a real port and exits 0 on SIGINT", async () => {
    const proc = spawnCli(["docs", "--port", "0"], env);
    running.push(proc);
    const [, url] = await waitForOutput(proc, /agent-serve docs at (http:\/\/\S+\/docs)/);
    const index = await fetch(url!);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('href="/docs/guide/getting-started"');
    const page = await fetch(`${url}/guide/http-api`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<h1>HTTP API</h1>");
    expect((await fetch(`${url}/guide/nope`)).status).toBe(404);
    proc.child.kill("SIGINT");
    expect((await finished(proc)).code).toBe(0);
  });

  it("`serve` mounts /docs; `serve --no-docs` does not", async () => {
    const [withDocs, withoutDocs] = await Promise.all([
      startServe(["examples/hello", "--port", "0", "--state-root", join(scratch, "state-a")], env),
      startServe(["examples/hello", "--port", "0", "--no-docs", "--state-root", join(scratch, "state-b")], env),
    ]);
    running.push(withDocs, withoutDocs);
    const on = await fetch(`${withDocs.url}/docs/guide/cli`);
    expect(on.status).toBe(200);
    expect(await on.text()).toContain("<h1>Command line</h1>");
    expect((await fetch(`${withoutDocs.url}/docs`)).status).toBe(404);
    expect((await fetch(`${withoutDocs.url}/hello/v1/health`)).status).toBe(200);
  });
});
