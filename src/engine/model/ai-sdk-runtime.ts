/**
 * The AI SDK functions the host calls, imported by name. The host loads this module on first use
 * (`await import`), and a bundler keeps only what these names need of `ai`: about 350 KB of its
 * 765 KB in the Workers bundle, which workerd compiles at every start-up whether used or not
 * (docs/design/cloudflare-build.md "Start-up CPU"). A namespace `import("ai")` would keep all of it.
 * @module
 */
export { createUIMessageStream, createUIMessageStreamResponse, jsonSchema, streamText } from "ai";
