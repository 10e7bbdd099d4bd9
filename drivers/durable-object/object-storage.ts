/**
 * The storage side every Durable Object of a worker has (docs/design/cloudflare.md "Storage"):
 * its own SQLite database, one driver per agent namespace; the storage protocol's endpoint,
 * through which other objects read and write what lives here; and the placed driver its host
 * uses, which sends each key to the object it lives in. Which object answers for a home is the
 * caller's (the Workers adapter reads its bindings), so nothing here knows a binding's name.
 * @module
 */
import { createDurableObjectStorage, type DurableObjectSqlStorage, type DurableObjectStorageDriver } from "./index.ts";
import { createPlacedStorage, type Home, type PlacedStorage } from "./placed-storage.ts";
import { STORAGE_HEADER, storageEndpoint, type StorageTransport } from "./storage-wire.ts";

/** What reaches another Durable Object: its stub's `fetch`. */
export interface ObjectStub {
  fetch(request: Request): Promise<Response>;
}

export interface ObjectStorage {
  /** This object's database for one agent (shared by its host and its endpoint). */
  local(namespace: string): DurableObjectStorageDriver;
  /** Answers another object's storage request. */
  endpoint(request: Request): Promise<Response>;
  /** The driver this object's host uses for one agent; `here` is what this object holds. */
  placed(namespace: string, here: Home): Promise<PlacedStorage>;
}

/** `storage` is this object's `ctx.storage`; `stubOf` names the object that holds a home. */
export function objectStorage(storage: DurableObjectSqlStorage, stubOf: (home: Home) => ObjectStub): ObjectStorage {
  const drivers = new Map<string, DurableObjectStorageDriver>();
  const local = (namespace: string): DurableObjectStorageDriver => {
    let driver = drivers.get(namespace);
    if (!driver) drivers.set(namespace, (driver = createDurableObjectStorage(storage, { namespace })));
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
        transport: (home) => transportTo(stubOf(home)),
        logger: { warn: (message, fields) => console.warn(`[agent-serve] [cloudflare] ${message}`, fields ?? "") },
      }),
  };
}

// --- internals ---

function transportTo(stub: ObjectStub): StorageTransport {
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
