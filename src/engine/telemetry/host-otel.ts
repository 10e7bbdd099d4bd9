/**
 * `ctx.host.otel`: OpenTelemetry for host code (docs/design/telemetry.md). It goes through
 * `@opentelemetry/api` only: with no SDK registered (no `OTEL_EXPORTER_OTLP_ENDPOINT` under the
 * CLI) every call is a no-op; with one, counters and spans are exported like the host's own.
 * @module
 */
import { metrics, trace } from "@opentelemetry/api";
import type { Counter } from "@opentelemetry/api";
import type { HostOtel } from "../../base/definitions/telemetry.ts";

export const INSTRUMENTATION_NAME = "agent-serve";

/** The `otel` host service of one agent; `slug` is added to every counter's attributes. */
export function createHostOtel(slug: string): HostOtel {
  const counters = new Map<string, Counter>();
  return {
    get tracer() {
      return trace.getTracer(INSTRUMENTATION_NAME);
    },
    get meter() {
      return metrics.getMeter(INSTRUMENTATION_NAME);
    },
    increment(name, value, attributes) {
      if (typeof name !== "string" || name === "") throw new TypeError("[agent-serve] [otel] increment needs a counter name");
      const amount = typeof value === "number" ? value : 1;
      const attrs = typeof value === "object" && value !== null ? value : (attributes ?? {});
      let counter = counters.get(name);
      if (!counter) counters.set(name, (counter = metrics.getMeter(INSTRUMENTATION_NAME).createCounter(name)));
      counter.add(amount, { "agent_serve.agent": slug, ...attrs });
    },
  };
}
