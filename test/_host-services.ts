/** Real host services for tool and hook contexts built by hand in unit tests. */
import { createHostKv } from "../src/kv/kv.ts";
import { createMemoryStorage } from "../src/storage/memory.ts";
import { createHostOtel } from "../src/telemetry/host-otel.ts";
import type { ToolHostServices } from "../src/tools/types.ts";

export function testHostServices(): ToolHostServices {
  return { kv: createHostKv({ storage: createMemoryStorage() }), otel: createHostOtel("test") };
}
