/**
 * The OpenTelemetry SDK for the Node host (docs/design/telemetry.md): when the standard
 * environment asks for OTLP export (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the traces or metrics
 * endpoint of its own), a tracer provider and a meter provider are registered globally and
 * export over OTLP/HTTP; the core only ever talks to `@opentelemetry/api`. Otherwise nothing is
 * registered and every span and counter is a no-op. `OTEL_SDK_DISABLED=true` turns it off.
 * The exporters read the endpoint and header variables from `process.env` themselves
 * (`OTEL_EXPORTER_OTLP_HEADERS`, ...); spans go as JSON over HTTP, batched every
 * `OTEL_BSP_SCHEDULE_DELAY` ms (default 5000) and flushed on shutdown.
 * @module
 */
import { metrics, trace } from "@opentelemetry/api";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { VERSION } from "../src/features/discovery/version.ts";

export interface Telemetry {
  /** Exports what is buffered and stops the providers (call it when the host closes). */
  shutdown(): Promise<void>;
}

/**
 * Registers the SDK when the environment asks for export; `undefined` when it does not (or when
 * another SDK is already registered in this process, which is then left in charge).
 */
export function startTelemetry(env: Record<string, string | undefined>): Telemetry | undefined {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true") return undefined;
  const traces = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const meters = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  if (!traces && !meters) return undefined;
  const resource = resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "agent-serve", "service.version": VERSION });
  const stops: Array<() => Promise<void>> = [];
  if (traces) {
    const provider = new TracerProvider({ resource, spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: Number(env.OTEL_BSP_SCHEDULE_DELAY) || 5000 })] });
    if (trace.setGlobalTracerProvider(provider)) stops.push(() => provider.shutdown());
  }
  if (meters) {
    const provider = new MeterProvider({ resource, readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })] });
    if (metrics.setGlobalMeterProvider(provider)) stops.push(() => provider.shutdown());
  }
  if (stops.length === 0) return undefined;
  return {
    async shutdown() {
      await Promise.allSettled(stops.map((stop) => stop()));
      trace.disable();
      metrics.disable();
    },
  };
}
