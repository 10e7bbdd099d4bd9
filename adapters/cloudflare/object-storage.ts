/**
 * The Durable Object storage driver (drivers/durable-object/object-storage.ts) bound to this
 * worker's two namespaces: a session's data in the object named by its id, everything shared in
 * the coordinator (docs/design/cloudflare.md "The three parts").
 * @module
 */
import type { Home } from "../../drivers/durable-object/homes.ts";
import { objectStorage as driverObjectStorage, type ObjectStorage } from "../../drivers/durable-object/object-storage.ts";
import { COORDINATOR_NAME } from "./coordinator-name.ts";
import type { CloudflareEnv, DurableObjectStateLike, DurableObjectStubLike } from "./platform.ts";

export type { ObjectStorage } from "../../drivers/durable-object/object-storage.ts";

/** The storage side of the object whose state is `ctx`. */
export function objectStorage(ctx: DurableObjectStateLike, env: CloudflareEnv): ObjectStorage {
  return driverObjectStorage(ctx.storage, (home) => homeStub(env, home));
}

/** The coordinator's stub. */
export function coordinatorStub(env: CloudflareEnv): DurableObjectStubLike {
  return env.AGENT_COORDINATOR.get(env.AGENT_COORDINATOR.idFromName(COORDINATOR_NAME));
}

/** The stub of the object session `sessionId` lives in (named by the id). */
export function sessionStub(env: CloudflareEnv, sessionId: string): DurableObjectStubLike {
  return env.AGENT_SESSION.get(env.AGENT_SESSION.idFromName(sessionId));
}

// --- internals ---

function homeStub(env: CloudflareEnv, home: Home): DurableObjectStubLike {
  return home === "coordinator" ? coordinatorStub(env) : sessionStub(env, home.session);
}
