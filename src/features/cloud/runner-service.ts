/**
 * The runner's HTTP face (docs/design/cloud-runtime.md): `POST /v1/runner/turns` runs one turn
 * for a host that signs its request with the shared secret and answers with the turn's NDJSON
 * lines, a beat every `beatMs` while the turn is quiet; `GET /v1/runner/health` says it is up;
 * `GET /v1/runner/sessions/:id` (signed too) shows what the runner did for a session.
 * @module
 */
import { errorMessage } from "../../base/errors.ts";
import { isSessionId } from "../../base/ids.ts";
import { RUNNER_HEALTH_PATH, RUNNER_PROTOCOL, RUNNER_TURNS_PATH, type RunnerLine, type TurnRequest } from "./protocol.ts";
import { type RunnerTurnDeps, runRunnerTurn } from "./runner-turn.ts";
import { checkRunnerSignature } from "./signing.ts";

export interface RunnerServiceOptions {
  /** The agents this runner runs turns for, by the host's slug. */
  agents: Record<string, RunnerTurnDeps>;
  secret: string;
  /** This runner's id (in `agent.bound`). */
  runnerId: string;
  /** The runner's own base URL, for the conversation URL in `agent.bound`. */
  baseUrl: () => string;
  /** @default 2000 */
  beatMs?: number;
  /** Where the runner reports turns and refusals (never a request body: it holds the env). */
  log?: (line: string) => void;
  /** Largest turn request accepted. @default 32 MiB */
  maxBodyBytes?: number;
}

export interface RunnerService {
  fetch(request: Request): Promise<Response>;
  /** Aborts every running turn. */
  close(): void;
}

/** Lines a runner keeps per session for its conversation page. */
const KEPT_LINES = 2000;

export function createRunnerService(options: RunnerServiceOptions): RunnerService {
  const running = new Map<string, AbortController>();
  const transcripts = new Map<string, RunnerLine[]>();
  const log = options.log ?? (() => {});
  const beatMs = options.beatMs ?? 2000;

  async function turn(request: Request): Promise<Response> {
    const body = await request.text();
    if (body.length > (options.maxBodyBytes ?? 32 * 1024 * 1024)) return problem(413, "payload_too_large", "turn request too large");
    const refused = await checkRunnerSignature(options.secret, request.headers.get("authorization"), "POST", RUNNER_TURNS_PATH, body);
    if (refused) {
      log(`refused a turn: ${refused}`);
      return problem(401, "unauthorized", refused);
    }
    let turnRequest: TurnRequest;
    try {
      turnRequest = parseTurnRequest(JSON.parse(body));
    } catch (error) {
      return problem(400, "invalid_request", errorMessage(error));
    }
    const deps = Object.hasOwn(options.agents, turnRequest.agent) ? options.agents[turnRequest.agent] : undefined;
    if (!deps || turnRequest.project.name !== deps.project.name) {
      const served = Object.entries(options.agents).map(([slug, agent]) => `${slug} (${agent.project.name})`).join(", ");
      return problem(409, "wrong_project", `this runner has no agent ${turnRequest.agent} of project ${JSON.stringify(turnRequest.project.name)}; it serves ${served || "none"}`);
    }
    const { sessionId } = turnRequest;
    // A new turn of a session replaces one still running here (the host preempted it).
    running.get(sessionId)?.abort();
    const abort = new AbortController();
    running.set(sessionId, abort);
    request.signal.addEventListener("abort", () => abort.abort(), { once: true });
    const kept = transcripts.get(sessionId) ?? [];
    transcripts.set(sessionId, kept);
    log(`turn ${turnRequest.turnId} of ${sessionId} started`);
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let last = Date.now();
    const send = (line: RunnerLine): void => {
      if (abort.signal.aborted && line.kind !== "end") return;
      last = Date.now();
      if (line.kind !== "beat") {
        kept.push(line);
        if (kept.length > KEPT_LINES) kept.splice(0, kept.length - KEPT_LINES);
      }
      try {
        controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
      } catch {
        abort.abort();
      }
    };
    const beat = setInterval(() => {
      if (Date.now() - last >= beatMs) send({ kind: "beat" });
    }, Math.max(50, Math.floor(beatMs / 2)));
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
      cancel() {
        abort.abort();
      },
    });
    send({ kind: "bound", agentId: `${options.runnerId}:${sessionId}`, url: `${options.baseUrl()}/v1/runner/sessions/${sessionId}` });
    void runRunnerTurn(deps, turnRequest, abort.signal, async (line) => send(line)).finally(() => {
      clearInterval(beat);
      if (running.get(sessionId) === abort) running.delete(sessionId);
      log(`turn ${turnRequest.turnId} of ${sessionId} ${abort.signal.aborted ? "stopped" : "ended"}`);
      try {
        controller.close();
      } catch {
        // The host went away first.
      }
    });
    return new Response(stream, { headers: { "content-type": "application/x-ndjson", "cache-control": "no-store" } });
  }

  async function transcript(request: Request, sessionId: string): Promise<Response> {
    const path = new URL(request.url).pathname;
    const refused = await checkRunnerSignature(options.secret, request.headers.get("authorization"), "GET", path, "");
    if (refused) return problem(401, "unauthorized", refused);
    const lines = transcripts.get(sessionId);
    if (!lines) return problem(404, "session_not_found", "this runner ran no turn of that session");
    return new Response(lines.map((line) => JSON.stringify(line)).join("\n") + "\n", { headers: { "content-type": "application/x-ndjson" } });
  }

  return {
    async fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === RUNNER_TURNS_PATH) return request.method === "POST" ? turn(request) : problem(405, "method_not_allowed", "POST only");
      if (pathname === RUNNER_HEALTH_PATH) return Response.json({ ok: true, runnerId: options.runnerId, agents: Object.keys(options.agents), running: running.size });
      const match = /^\/v1\/runner\/sessions\/([^/]+)$/.exec(pathname);
      if (match && request.method === "GET") return transcript(request, decodeURIComponent(match[1]!));
      return problem(404, "not_found", "no such runner route");
    },
    close() {
      for (const abort of running.values()) abort.abort();
    },
  };
}

function problem(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}

/** The turn request's shape, checked before anything runs. */
function parseTurnRequest(value: unknown): TurnRequest {
  const req = value as Partial<TurnRequest> | null;
  if (typeof req !== "object" || req === null) throw new Error("the turn request must be a JSON object");
  if (req.protocol !== RUNNER_PROTOCOL) throw new Error(`unsupported runner protocol ${JSON.stringify(req.protocol)} (this runner speaks ${RUNNER_PROTOCOL})`);
  if (typeof req.sessionId !== "string" || !isSessionId(req.sessionId)) throw new Error("sessionId must be a session id");
  if (typeof req.turnId !== "string" || !/^[A-Za-z0-9_-]+$/.test(req.turnId)) throw new Error("turnId is missing");
  if (typeof req.agent !== "string" || !/^[A-Za-z0-9_-]+$/.test(req.agent)) throw new Error("agent must be a slug");
  if (typeof req.project?.name !== "string") throw new Error("project.name is missing");
  if (typeof req.model?.id !== "string") throw new Error("model.id is missing");
  if (!Array.isArray(req.messages)) throw new Error("messages must be a list");
  if (typeof req.maxSteps !== "number" || req.maxSteps < 1) throw new Error("maxSteps must be a positive number");
  if (typeof req.cloud !== "object" || req.cloud === null) throw new Error("cloud must be an object");
  return {
    ...req,
    model: { id: req.model.id, params: req.model.params ?? {} },
    prompt: { instructions: req.prompt?.instructions ?? "", agentTools: req.prompt?.agentTools ?? "" },
  } as TurnRequest;
}
