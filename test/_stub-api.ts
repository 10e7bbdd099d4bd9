/**
 * A local HTTP server standing in for a platform's REST or Web API (GitHub, Slack): it records
 * every request (method, path, headers, parsed body) and answers with what `respond` returns.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** JSON bodies parsed; form bodies as an object; anything else as text. */
  body: unknown;
}

export interface StubApi {
  url: string;
  calls: RecordedCall[];
  close(): Promise<void>;
}

export type StubResponder = (call: RecordedCall) => { status?: number; body: unknown } | Promise<{ status?: number; body: unknown }>;

export async function startStubApi(respond: StubResponder): Promise<StubApi> {
  const calls: RecordedCall[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const call: RecordedCall = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        body: parse(text, request.headers["content-type"]),
      };
      calls.push(call);
      void Promise.resolve(respond(call)).then(({ status = 200, body }) => {
        response.writeHead(status, { "content-type": "application/json; charset=utf-8" });
        response.end(JSON.stringify(body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parse(text: string, type: string | undefined): unknown {
  if (text === "") return undefined;
  if (type?.includes("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
