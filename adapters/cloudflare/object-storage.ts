/**
 * The storage side every Durable Object of the worker has (docs/design/cloudflare.md "Storage"):
 * its own SQLite database, one driver per agent slug; the storage protocol's endpoint, through
 * which other objects read and write what lives here; and the placed driver its host uses, which
 * sends each key to the object it lives in.
 * @module
 */
import { createDurableObjectStorage, type DurableObjectStorageDriver } from "../../drivers/durable-object/index.ts";
import { COORDINATOR_NAME } from "./coordinator-name.ts";
import { createPlacedStorage, type Home, type PlacedStorage } from "./placed-storage.ts";
import type { CloudflareEnv, DurableObjectStateLike, DurableObjectStubLike } from "./platform.ts";
import type { StorageTransport } from "./remote-storage.ts";
import { STORAGE_HEADER, storageEndpoint } from "./storage-wire.ts";

export interface ObjectStorage {
  /** This object's database for one agent (shared by its host and its endpoint). */
  local(namespace: string): DurableObjectStorageDriver;
  /** Answers another object's storage request. */
  endpoint(request: Request): Promise<Response>;
  /** The driver this object's host uses for one agent; `here` is what this object holds. */
  placed(namespace: string, here: Home): Promise<PlacedStorage>;
}

export function objectStorage(ctx: DurableObjectStateLike, env: CloudflareEnv): ObjectStorage {
  const drivers = new Map<string, DurableObjectStorageDriver>();
  const local = (namespace: string): DurableObjectStorageDriver => {
    let driver = drivers.get(namespace);
    if (!driver) drivers.set(namespace, (driver = createDurableObjectStorage(ctx.storage, { namespace })));
    return driver;
  };
  return {
    local,
    endpoint: storageEndpoint(local),
    placed: (namespace, here) =>
      createPlacedStorage({
        namespace,
        here,
        local: local(namespace),
        transport: (home) => transportTo(homeStub(env, home)),
        logger: { warn: (message, fields) => console.warn(`[agent-serve] [cloudflare] ${message}`, fields ?? "") },
      }),
  };
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

function transportTo(stub: DurableObjectStubLike): StorageTransport {
  return (wire, signal) =>
    stub.fetch(
      new Request("https://storage.agent-serve.internal/storage", {
        method: "POST",
        headers: { [STORAGE_HEADER]: "ops", "content-type": "application/json" },
        body: JSON.stringify(wire),
        ...(signal ? { signal } : {}),
      }),
    );
}
