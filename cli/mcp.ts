/**
 * `agent-serve mcp [dir]`: the agent as an MCP server over stdio, for desktop clients
 * (docs/guide/mcp.md "Over stdio"). Without `--url` it starts the project's host on the same
 * state root and store as `serve`, so a conversation started over stdio can be continued over
 * HTTP; with `--url` it bridges to a running server's agent. Either way the answers come from the
 * agent's own `POST /v1/mcp` (./mcp-bridge.ts). stdout carries the protocol only: progress and
 * the host's log go to stderr.
 * @module
 */
import { createLineReader } from "./line-reader.ts";
import { createMcpBridge } from "./mcp-bridge.ts";
import { EXIT_OK } from "./io.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";
import { openTarget } from "./target.ts";
import type { TargetArgs } from "./target.ts";

export async function mcpCommand(args: TargetArgs, io: CliIo): Promise<number> {
  const target = await openTarget(args, io, createProgress(io, { quiet: true }));
  const bridge = createMcpBridge((body, headers, signal) => target.client.fetch("/v1/mcp", { method: "POST", body, headers, signal }), io.stdout);
  io.stderr.write(`agent-serve mcp: ${target.agent.name} (${target.kind === "local" ? "local store" : target.client.baseUrl}) on stdio\n`);
  // Stdin is a pipe from the client: plain lines, no prompt, no echo.
  const lines = createLineReader({ ...io, stdout: { write: () => true } });
  const pending = new Set<Promise<void>>();
  const stop = (): void => lines.close();
  io.signal?.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const line = await lines.next("");
      if (line === undefined) break;
      const handled = bridge.line(line).finally(() => pending.delete(handled));
      pending.add(handled);
    }
    // The client closed stdin: answer what is in flight, then stop.
    await Promise.allSettled(pending);
  } finally {
    io.signal?.removeEventListener("abort", stop);
    bridge.close();
    await target.close();
  }
  return EXIT_OK;
}
