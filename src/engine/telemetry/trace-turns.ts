/**
 * Traces of turns (docs/design/telemetry.md): a span per turn, per step, per model call and per
 * tool call, with session, turn, tool and token-usage attributes, through `@opentelemetry/api`
 * (a no-op until an SDK is registered). The runner is wrapped, so the agent loop itself knows
 * nothing of tracing; a turn's span ends on its `turn.completed` or `turn.failed` event.
 *
 * Attribute names follow the OpenTelemetry GenAI semantic conventions (`gen_ai.*`) where one
 * exists, and `agent_serve.*` otherwise.
 * @module
 */
import { SpanKind, SpanStatusCode, context, isSpanContextValid, trace } from "@opentelemetry/api";
import type { Context, Span } from "@opentelemetry/api";
import { errorMessage } from "../../base/errors.ts";
import type { LanguageModelPort } from "../../base/ports/model.ts";
import type { SessionEvent } from "../../base/events/vocabulary.ts";
import type { ToolExecutor } from "../turns/tool-executor.ts";
import type { TurnRunner } from "../turns/turn-runner.ts";
import { INSTRUMENTATION_NAME } from "./host-otel.ts";

interface OpenTurn {
  span: Span;
  context: Context;
  step?: { span: Span; context: Context };
  steps: number;
}

export interface TurnTracing {
  /** The runner with every turn traced. */
  runner: TurnRunner;
  /** Register on the event log: ends turn spans on `turn.completed` / `turn.failed`. */
  onEvent(event: SessionEvent): void;
}

export function traceTurns(runner: TurnRunner, agent: { slug: string }): TurnTracing {
  const open = new Map<string, OpenTurn>();
  const tracer = () => trace.getTracer(INSTRUMENTATION_NAME);

  const endStep = (turn: OpenTurn): void => {
    turn.step?.span.end();
    delete turn.step;
  };

  return {
    runner: {
      async prepare(record, handle) {
        const span = tracer().startSpan(`invoke_agent ${agent.slug}`, {
          kind: SpanKind.INTERNAL,
          attributes: {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": agent.slug,
            "gen_ai.conversation.id": record.sessionId,
            "agent_serve.session.id": record.sessionId,
            "agent_serve.turn.id": handle.turnId,
            "agent_serve.channel": record.channel,
            ...(record.purpose === undefined ? {} : { "agent_serve.session.purpose": record.purpose }),
          },
        });
        // No SDK registered: the API's span is a no-op with no trace id, and so would every step's
        // and call's be. The turn runs unwrapped, sparing each streamed part a generator hop
        // (docs/design/speed.md "CPU per turn"). A sampled-out span still has a trace id.
        if (!span.isRecording() && !isSpanContextValid(span.spanContext())) return runner.prepare(record, handle);
        const turn: OpenTurn = { span, context: trace.setSpan(context.active(), span), steps: 0 };
        open.set(handle.turnId, turn);
        let setup;
        try {
          setup = await runner.prepare(record, handle);
        } catch (error) {
          open.delete(handle.turnId);
          span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
          span.end();
          throw error;
        }
        const ids = { sessionId: record.sessionId, turnId: handle.turnId };
        return {
          ...setup,
          model: "error" in setup.model ? setup.model : traceModel(setup.model, turn, ids),
          tools: traceTools(setup.tools, turn, ids),
        };
      },
    },
    onEvent(event) {
      if (event.type !== "turn.completed" && event.type !== "turn.failed") return;
      const turn = event.turnId === undefined ? undefined : open.get(event.turnId);
      if (!turn || event.turnId === undefined) return;
      open.delete(event.turnId);
      endStep(turn);
      if (event.type === "turn.completed") {
        turn.span.setAttributes(usageAttributes(event.data.usage));
        if (typeof event.data.model === "string") turn.span.setAttribute("gen_ai.request.model", event.data.model);
      } else {
        turn.span.setStatus({ code: SpanStatusCode.ERROR, message: String(event.data.message ?? "turn failed") });
      }
      turn.span.setAttribute("agent_serve.turn.steps", turn.steps);
      turn.span.end();
    },
  };

  /** Each model call starts a step (the call and the tool calls it asks for). */
  function traceModel(model: LanguageModelPort, turn: OpenTurn, ids: { sessionId: string; turnId: string }): LanguageModelPort {
    return {
      id: model.id,
      async *stream(request) {
        endStep(turn);
        const stepIndex = turn.steps++;
        const stepSpan = tracer().startSpan(`step ${stepIndex}`, { attributes: { "agent_serve.step.index": stepIndex, "agent_serve.session.id": ids.sessionId, "agent_serve.turn.id": ids.turnId } }, turn.context);
        turn.step = { span: stepSpan, context: trace.setSpan(turn.context, stepSpan) };
        const span = tracer().startSpan(
          `chat ${model.id}`,
          {
            kind: SpanKind.CLIENT,
            attributes: {
              "gen_ai.operation.name": "chat",
              "gen_ai.request.model": model.id,
              "agent_serve.session.id": ids.sessionId,
              "agent_serve.turn.id": ids.turnId,
              "agent_serve.step.index": stepIndex,
            },
          },
          turn.step.context,
        );
        try {
          for await (const part of model.stream(request)) {
            if (part.type === "finish") {
              span.setAttributes({ ...usageAttributes(part.usage), "gen_ai.response.finish_reasons": [part.finishReason] });
              stepSpan.setAttributes(usageAttributes(part.usage));
            }
            yield part;
          }
        } catch (error) {
          recordFailure(span, error);
          throw error;
        } finally {
          span.end();
        }
      },
    };
  }

  function traceTools(tools: ToolExecutor, turn: OpenTurn, ids: { sessionId: string; turnId: string }): ToolExecutor {
    return {
      ...tools,
      specs: tools.specs,
      prepare: (call) => tools.prepare(call),
      async execute(call, signal) {
        const span = tracer().startSpan(
          `execute_tool ${call.toolName}`,
          {
            attributes: {
              "gen_ai.operation.name": "execute_tool",
              "gen_ai.tool.name": call.toolName,
              "gen_ai.tool.call.id": call.toolCallId,
              "agent_serve.session.id": ids.sessionId,
              "agent_serve.turn.id": ids.turnId,
            },
          },
          turn.step?.context ?? turn.context,
        );
        try {
          const outcome = await context.with(trace.setSpan(context.active(), span), () => tools.execute(call, signal));
          span.setAttribute("agent_serve.tool.is_error", outcome.isError);
          if (outcome.isError) span.setStatus({ code: SpanStatusCode.ERROR, message: "the tool returned an error result" });
          return outcome;
        } catch (error) {
          recordFailure(span, error);
          throw error;
        } finally {
          span.end();
        }
      },
    };
  }
}

// --- internals ---

function usageAttributes(usage: unknown): Record<string, number> {
  if (typeof usage !== "object" || usage === null) return {};
  const u = usage as Record<string, unknown>; // SAFETY: a non-null object; members read as numbers below
  const out: Record<string, number> = {};
  const put = (name: string, value: unknown): void => {
    if (typeof value === "number") out[name] = value;
  };
  put("gen_ai.usage.input_tokens", u.inputTokens);
  put("gen_ai.usage.output_tokens", u.outputTokens);
  put("gen_ai.usage.cache_read_input_tokens", u.cacheReadTokens);
  put("gen_ai.usage.cache_creation_input_tokens", u.cacheWriteTokens);
  return out;
}

function recordFailure(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
}
