import { HTTPError, badRequest } from "./errors.ts";

/**
 * Reads a JSON request body, refusing bodies over `maxBytes` with 413 before buffering them.
 * An empty body reads as `{}` (docs/guide/http-api.md "Route layout": empty POST bodies are
 * coerced).
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const text = await readText(request, maxBytes);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("request body is not valid JSON");
  }
}

/** The exact body text (channel routes keep it for signature checks), refusing bodies over `maxBytes` with 413. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  return readText(request, maxBytes);
}

// --- internals ---

async function readText(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let size = 0;
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
      text += decoder.decode(value, { stream: true });
    }
    return text + decoder.decode();
  } catch (error) {
    if (HTTPError.isError(error)) throw error;
    throw badRequest("request body could not be read as UTF-8 text");
  }
}

function tooLarge(maxBytes: number): HTTPError {
  return new HTTPError({
    status: 413,
    code: "payload_too_large",
    message: `request body exceeds ${maxBytes} bytes`,
  });
}
