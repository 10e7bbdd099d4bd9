/**
 * The runner's HTTP face (docs/design/cloud-runtime.md): `POST /v1/runner/turns` runs one turn
 * for a host that signs its request with the shared secret and answers with the turn's NDJSON
 * lines, a beat every `beatMs` while the turn is quiet. A turn outlives its host's connection for
 * `detachMs`, keeping its lines, so a restarted host reattaches
 * (`POST /v1/runner/turns/:turnId/attach`) and loses none; `DELETE /v1/runner/turns/:turnId`
 * stops it. `GET /v1/runner/health` says it is up; `GET /v1/runner/sessions/:id` (signed) shows
 * what the runner did for a session, `DELETE /v1/runner/sessions/:id` (signed) forgets it and
 * removes its workspace, and `GET /v1/runner/workspaces` (signed) lists the sessions with one;
 * workspaces no turn used for `workspaceIdleMs` are swept (docs/design/cloud-workspaces.md).
 * @module
 */
import { errorMessage } from "../../base/errors.ts";
import { isSessionId } from "../../base/ids.ts";
import { RUNNER_HEALTH_PATH, RUNNER_PROTOCOL, RUNNER_TURNS_PATH, RUNNER_WORKSPACES_PATH, type RunnerLine, type TurnRequest } from "./protocol.ts";
import { type RunnerTurnDeps, runRunnerTurn } from "./runner-turn.ts";
import { checkRunnerSignature } from "./signing.ts";
import { IDLE_SWEEP_EVERY_MS, WORKSPACE_IDLE_MS, sweepIdleWorkspaces } from "./runner-workspaces.ts";

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
  /** How long a turn keeps running with no host attached (a host restarting). @default 60000 */
  detachMs?: number;
  /** Where the runner reports turns and refusals (never a request body: it holds the env). */
  log?: (line: string) => void;
  /** Largest turn request accepted. @default 32 MiB */
  maxBodyBytes?: number;
  /** A session workspace no turn used for this long is removed; 0 keeps them. @default 7 days */
  workspaceIdleMs?: number;
  /** How often idle workspaces are looked for after the first sweep at start. @default 1 hour */
  idleSweepEveryMs?: number;
}

export interface RunnerService {
  fetch(request: Request): Promise<Response>;
  /** Removes the workspaces idle past the ttl now; resolves with `agent/sessionId` of each. */
  sweepIdle(): Promise<string[]>;
  /** Aborts every running turn and stops the idle sweep. */
  close(): void;
}

/** Lines a runner keeps per session for its conversation page, and how many sessions it keeps. */
const KEPT_LINES = 2000;
const KEPT_SESSIONS = 500;
/** How long an ended turn's lines stay for a host that reattaches late. */
const ENDED_KEPT_MS = 5 * 60_000;

/** One turn on this runner: its lines so far and the host stream attached to it, if any. */
interface RunningTurn {
  sessionId: string;
  request: TurnRequest;
  abort: AbortController;
  lines: RunnerLine[];
  ended: boolean;
  attached?: (line: RunnerLine) => void;
  detachTimer?: ReturnType<typeof setTimeout>;
}

export function createRunnerService(options: RunnerServiceOptions): RunnerService {
  const turns = new Map<string, RunningTurn>();
  const bySession = new Map<string, RunningTurn>();
  const transcripts = new Map<string, RunnerLine[]>();
  const log = options.log ?? (() => {});
  const beatMs = options.beatMs ?? 2000;
  const detachMs = options.detachMs ?? 60_000;
  const idleMs = options.workspaceIdleMs ?? WORKSPACE_IDLE_MS;
  const workspaces = Object.fromEntries(Object.entries(options.agents).map(([slug, agent]) => [slug, agent.workspaces]));

  async function sweepIdle(): Promise<string[]> {
    if (idleMs <= 0) return [];
    const removed = await sweepIdleWorkspaces(workspaces, idleMs, (sessionId) => bySession.has(sessionId), Date.now());
    for (const name of removed) log(`removed the workspace of ${name}: no turn for ${idleMs} ms`);
    return removed;
  }
  const sweepFailed = (error: unknown): void => log(`the idle workspace sweep failed: ${errorMessage(error)}`);
  // At start, then hourly: a runner down for a while finds what went idle meanwhile.
  void sweepIdle().catch(sweepFailed);
  const idleTimer = idleMs > 0 ? setInterval(() => void sweepIdle().catch(sweepFailed), options.idleSweepEveryMs ?? IDLE_SWEEP_EVERY_MS) : undefined;
  (idleTimer as { unref?: () => void } | undefined)?.unref?.();

  async function signed(request: Request, path: string, body: string): Promise<Response | undefined> {
    const refused = await checkRunnerSignature(options.secret, request.headers.get("authorization"), request.method, path, body);
    if (!refused) return undefined;
    log(`refused a request: ${refused}`);
    return problem(401, "unauthorized", refused);
  }

  function emit(turn: RunningTurn, line: RunnerLine): void {
    if (line.kind !== "beat") {
      turn.lines.push(line);
      const kept = transcripts.get(turn.sessionId) ?? [];
      kept.push(line);
      if (kept.length > KEPT_LINES) kept.splice(0, kept.length - KEPT_LINES);
      // Most recently active last: the oldest session's page goes first.
      transcripts.delete(turn.sessionId);
      transcripts.set(turn.sessionId, kept);
      if (transcripts.size > KEPT_SESSIONS) transcripts.delete(transcripts.keys().next().value!);
    }
    turn.attached?.(line);
  }

  /** The host went away: the turn runs on for `detachMs`, waiting for it to come back. */
  function detach(turn: RunningTurn): void {
    turn.attached = undefined;
    if (turn.ended) return;
    clearTimeout(turn.detachTimer);
    turn.detachTimer = setTimeout(() => {
      log(`turn ${turn.request.turnId} of ${turn.sessionId}: no host for ${detachMs} ms`);
      turn.abort.abort();
    }, detachMs);
  }

  /** The NDJSON response a host reads the turn from: `from` lines replayed, then live ones. */
  function stream(turn: RunningTurn, replay: RunnerLine[]): Response {
    clearTimeout(turn.detachTimer);
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let last = Date.now();
    let beat: ReturnType<typeof setInterval> | undefined;
    let closed = false;
    const close = (): void => {
      if (closed) return;
      closed = true;
      clearInterval(beat);
      try {
        controller.close();
      } catch {
        // The host went away first.
      }
    };
    const send = (line: RunnerLine): void => {
      if (closed) return;
      last = Date.now();
      try {
        controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
      } catch {
        closed = true;
        clearInterval(beat);
        if (turn.attached === send) detach(turn);
        return;
      }
      if (line.kind === "end") close();
    };
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
      cancel() {
        closed = true;
        clearInterval(beat);
        if (turn.attached === send) detach(turn);
      },
    });
    // A host that attaches again replaces the one before it.
    turn.attached = send;
    for (const line of replay) send(line);
    if (!closed && !turn.ended) {
      beat = setInterval(() => {
        if (Date.now() - last >= beatMs) send({ kind: "beat" });
      }, Math.max(50, Math.floor(beatMs / 2)));
    }
    return new Response(body, { headers: { "content-type": "application/x-ndjson", "cache-control": "no-store" } });
  }

  async function start(request: Request): Promise<Response> {
    const body = await request.text();
    if (body.length > (options.maxBodyBytes ?? 32 * 1024 * 1024)) return problem(413, "payload_too_large", "turn request too large");
    const refused = await signed(request, RUNNER_TURNS_PATH, body);
    if (refused) return refused;
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
    const { sessionId, turnId } = turnRequest;
    // A new turn of a session replaces one still running here (the host preempted it).
    bySession.get(sessionId)?.abort.abort();
    const turn: RunningTurn = { sessionId, request: turnRequest, abort: new AbortController(), lines: [], ended: false };
    turns.set(turnId, turn);
    bySession.set(sessionId, turn);
    log(`turn ${turnId} of ${sessionId} started`);
    const response = stream(turn, []);
    emit(turn, { kind: "bound", agentId: `${options.runnerId}:${sessionId}`, url: `${options.baseUrl()}/v1/runner/sessions/${sessionId}` });
    void runRunnerTurn(deps, turnRequest, turn.abort.signal, async (line) => emit(turn, line)).finally(() => {
      turn.ended = true;
      clearTimeout(turn.detachTimer);
      if (bySession.get(sessionId) === turn) bySession.delete(sessionId);
      log(`turn ${turnId} of ${sessionId} ${turn.abort.signal.aborted ? "stopped" : "ended"}`);
      // An aborted turn writes no end line: close whoever still reads it.
      if (turn.abort.signal.aborted) turn.attached?.({ kind: "end", outcome: { status: "failed", message: "turn stopped on the runner" } });
      setTimeout(() => turns.delete(turnId), ENDED_KEPT_MS).unref?.();
    });
    return response;
  }

  async function attach(request: Request, turnId: string): Promise<Response> {
    const body = await request.text();
    const refused = await signed(request, `${RUNNER_TURNS_PATH}/${turnId}/attach`, body);
    if (refused) return refused;
    const turn = turns.get(turnId);
    if (!turn) return problem(404, "turn_not_found", "this runner has no such turn (it ended long ago, or the runner restarted)");
    let after = 0;
    try {
      const parsed = JSON.parse(body || "{}") as { after?: unknown; credential?: unknown };
      if (typeof parsed.after === "number") after = parsed.after;
      // The restarted host's key differs: its new credential replaces the old one for later calls.
      if (typeof parsed.credential === "string" && turn.request.tools) turn.request.tools.credential = parsed.credential;
    } catch {
      return problem(400, "invalid_request", "the attach body must be JSON {after, credential?}");
    }
    log(`turn ${turnId} of ${turn.sessionId}: host attached after line ${after}`);
    const replay = turn.lines.filter((line) => line.kind === "end" || (line.kind === "emit" && line.seq > after));
    return stream(turn, replay);
  }

  async function cancel(request: Request, turnId: string): Promise<Response> {
    const refused = await signed(request, `${RUNNER_TURNS_PATH}/${turnId}`, "");
    if (refused) return refused;
    turns.get(turnId)?.abort.abort();
    return new Response(null, { status: 204 });
  }

  async function transcript(request: Request, sessionId: string): Promise<Response> {
    const refused = await signed(request, new URL(request.url).pathname, "");
    if (refused) return refused;
    const lines = transcripts.get(sessionId);
    if (!lines) return problem(404, "session_not_found", "this runner ran no turn of that session");
    return new Response(lines.map((line) => JSON.stringify(line)).join("\n") + "\n", { headers: { "content-type": "application/x-ndjson" } });
  }

  /** The host deleted the session: its turn stops, its page and its workspace go. */
  async function forget(request: Request, sessionId: string): Promise<Response> {
    const body = await request.text();
    const refused = await signed(request, new URL(request.url).pathname, body);
    if (refused) return refused;
    let agent: unknown;
    try {
      agent = (JSON.parse(body || "{}") as { agent?: unknown }).agent;
    } catch {
      return problem(400, "invalid_request", "the body must be JSON {agent}");
    }
    if (typeof agent !== "string" || !Object.hasOwn(options.agents, agent)) return problem(400, "invalid_request", "agent must be one this runner serves");
    if (!isSessionId(sessionId)) return problem(400, "invalid_request", "not a session id");
    bySession.get(sessionId)?.abort.abort();
    transcripts.delete(sessionId);
    await options.agents[agent]!.workspaces?.remove(sessionId);
    log(`removed the workspace of ${agent}/${sessionId}: the session was deleted`);
    return new Response(null, { status: 204 });
  }

  async function listWorkspaces(request: Request): Promise<Response> {
    const refused = await signed(request, new URL(request.url).pathname, "");
    if (refused) return refused;
    const agents: Record<string, string[]> = {};
    for (const [slug, agent] of Object.entries(workspaces)) agents[slug] = agent ? (await agent.list()).map(({ sessionId }) => sessionId) : [];
    return Response.json({ agents });
  }

  return {
    sweepIdle,
    async fetch(request) {
      const { pathname } = new URL(request.url);
      const { method } = request;
      if (pathname === RUNNER_TURNS_PATH) return method === "POST" ? start(request) : problem(405, "method_not_allowed", "POST only");
      if (pathname === RUNNER_HEALTH_PATH) return Response.json({ ok: true, runnerId: options.runnerId, agents: Object.keys(options.agents), running: bySession.size });
      const turn = /^\/v1\/runner\/turns\/([A-Za-z0-9_-]+)(\/attach)?$/.exec(pathname);
      if (turn && turn[2] && method === "POST") return attach(request, turn[1]!);
      if (turn && !turn[2] && method === "DELETE") return cancel(request, turn[1]!);
      const session = /^\/v1\/runner\/sessions\/([^/]+)$/.exec(pathname);
      if (session && method === "GET") return transcript(request, decodeURIComponent(session[1]!));
      if (session && method === "DELETE") return forget(request, decodeURIComponent(session[1]!));
      if (pathname === RUNNER_WORKSPACES_PATH && method === "GET") return listWorkspaces(request);
      return problem(404, "not_found", "no such runner route");
    },
    close() {
      clearInterval(idleTimer);
      for (const turn of bySession.values()) turn.abort.abort();
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
