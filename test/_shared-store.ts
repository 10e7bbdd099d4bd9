/**
 * Several hosts in one test process over one driver instance behave like processes sharing a
 * store: the instance's follow reaches every host and its leases exclude every host. This wrapper
 * says so in the capabilities, which is what makes the hosts coordinate as separate processes do.
 */
import type { StorageDriver } from "../src/base/storage/types.ts";

export function sharedStore(inner: StorageDriver): StorageDriver {
  const capabilities = { ...inner.capabilities, follow: "shared" as const, sharedLeases: true };
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "capabilities") return capabilities;
      // Every host closes its storage; the shared instance outlives them.
      if (property === "close") return async () => {};
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
