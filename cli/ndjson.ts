/** The non-empty lines of a byte stream, as text (NDJSON without parsing). */
export async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) yield line;
      newline = buffered.indexOf("\n");
    }
  }
  const rest = (buffered + decoder.decode()).trim();
  if (rest) yield rest;
}

/** Parses an NDJSON byte stream into values, one per non-empty line. */
export async function* readNdjson(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  for await (const line of readLines(body)) yield JSON.parse(line);
}
