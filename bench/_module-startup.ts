/**
 * Child process of bench/cloudflare-startup.ts: the CPU time V8 spends starting one ES module
 * worker the way workerd starts it, measured with `process.cpuUsage()` around each phase in a
 * fresh process:
 *
 * - compile every module the worker uploads: the ones the entry reaches through static imports
 *   and the rest (workerd compiles each uploaded module when the worker loads, imported or not: a
 *   syntax error in a never-imported module fails its start-up),
 * - link the entry's graph,
 * - evaluate its top level (what runs before the first request can be handled).
 *
 *   node --experimental-vm-modules bench/_module-startup.ts <entry.mjs> [<other uploaded module>...] [--detail]
 *
 * Prints `{compileStartupMs, compileOtherMs, linkMs, evaluateMs, startupModules, startupBytes,
 * otherModules, otherBytes, detail?}`. `vm.SourceTextModule` is the V8 module API workerd uses too,
 * so the phases are measured apart (workerd's clocks do not advance during synchronous work, and a
 * plain `import()` would mix in Node's file reading and resolution). Files are read before each
 * compile is timed: workerd has them in memory. A dynamic `import()` during evaluation fails the
 * run: code split out of the start-up must not be loaded by it.
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { SourceTextModule } from "node:vm";
import type { Module } from "node:vm";

const args = process.argv.slice(2).filter((arg) => arg !== "--detail");
const detail = process.argv.includes("--detail");
if (args.length === 0) throw new Error("usage: _module-startup.ts <entry.mjs> [<other uploaded module>...] [--detail]");
const [entry, ...others] = args.map((file) => resolve(file)) as [string, ...string[]];

// Node creates some web globals on first touch (fetch loads undici); workerd has them built in,
// so they exist before measuring.
void [globalThis.fetch, Response, Request, Headers, FormData, TextEncoder, TextDecoder, URL, crypto.subtle, ReadableStream, WritableStream, TransformStream, Blob, AbortController, structuredClone, WebSocket];

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

const modules = new Map<string, SourceTextModule>();
const compiled: Array<{ file: string; bytes: number; ms: number }> = [];

function compile(file: string): SourceTextModule {
  const text = readFileSync(file, "utf8");
  const start = process.cpuUsage();
  const module = new SourceTextModule(text, {
    identifier: file,
    importModuleDynamically: () => {
      throw new Error(`dynamic import during start-up in ${file}`);
    },
  });
  compiled.push({ file, bytes: Buffer.byteLength(text), ms: cpuMs(start) });
  modules.set(file, module);
  return module;
}

// The entry's static graph, by V8's own list of each module's imports.
const pending = [entry];
while (pending.length > 0) {
  const file = pending.pop()!;
  if (modules.has(file)) continue;
  for (const specifier of compile(file).dependencySpecifiers) {
    if (!specifier.startsWith(".")) throw new Error(`${file} imports ${specifier}: a worker's modules import each other by relative path`);
    pending.push(resolve(dirname(file), specifier));
  }
}
const atStartup = compiled.length;
for (const file of others) if (!modules.has(file)) compile(file);

const linkStart = process.cpuUsage();
const root = modules.get(entry)!;
await root.link((specifier: string, referencing: Module) => {
  const found = modules.get(resolve(dirname(referencing.identifier), specifier));
  if (!found) throw new Error(`${referencing.identifier} imports ${specifier}, which was not compiled`);
  return found;
});
const linkMs = cpuMs(linkStart);

const evaluateStart = process.cpuUsage();
await root.evaluate();
const evaluateMs = cpuMs(evaluateStart);

const sum = (list: typeof compiled, key: "bytes" | "ms"): number => list.reduce((total, item) => total + item[key], 0);
const startup = compiled.slice(0, atStartup);
const other = compiled.slice(atStartup);
const result = {
  compileStartupMs: sum(startup, "ms"),
  compileOtherMs: sum(other, "ms"),
  linkMs,
  evaluateMs,
  startupModules: startup.length,
  startupBytes: sum(startup, "bytes"),
  otherModules: other.length,
  otherBytes: sum(other, "bytes"),
  ...(detail ? { detail: compiled.map(({ file, bytes, ms }) => ({ file: file.slice(dirname(entry).length + 1), bytes, ms })) } : {}),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
