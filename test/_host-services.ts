/** Real host services for tool and hook contexts built by hand in unit tests. */
import { createHostKv } from "../src/engine/kv/kv.ts";
import { createMemoryStorage } from "../src/base/storage/memory.ts";
import { createHostOtel } from "../src/engine/telemetry/host-otel.ts";
import type { ToolHostServices } from "../src/base/definitions/tools.ts";

export function testHostServices(): ToolHostServices {
  return { kv: createHostKv({ storage: createMemoryStorage() }), otel: createHostOtel("test") };
}
