/**
 * `ctx.host.otel`: the OpenTelemetry service tools and hooks reach (docs/design/telemetry.md).
 * @module
 */
import type { Attributes, Meter, Tracer } from "@opentelemetry/api";

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
