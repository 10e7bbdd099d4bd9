/**
 * `ctx.host.otel`: OpenTelemetry for host code (docs/design/telemetry.md). It goes through
 * `@opentelemetry/api` only: with no SDK registered (no `OTEL_EXPORTER_OTLP_ENDPOINT` under the
 * CLI) every call is a no-op; with one, counters and spans are exported like the host's own.
 * @module
 */
import { metrics, trace } from "@opentelemetry/api";
import type { Attributes, Counter, Meter, Tracer } from "@opentelemetry/api";

export const INSTRUMENTATION_NAME = "agent-serve";

export interface HostOtel {
  /** The host's tracer: spans started here join the agent's traces when a parent is active. */
  readonly tracer: Tracer;
  readonly meter: Meter;
  /**
   * Adds to the counter `name` (created on first use): `increment("refunds")`,
   * `increment("refunds", 3)`, `increment("refunds", {region: "eu"})` or `increment("refunds", 3, {region: "eu"})`.
   */
  increment(name: string, value?: number | Attributes, attributes?: Attributes): void;
}

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
