/**
 * `agent-serve serve --storage redis://…` as a real process (docs/guide/cli.md, `--storage`): the
 * shared store suite (test/_serve-storage-suite.ts) on Redis.
 */
import { REDIS_MISSING, REDIS_SERVER, startRedisServer } from "./_redis-server.ts";
import { serveStorageSuite } from "./_serve-storage-suite.ts";

serveStorageSuite({
  name: "Redis",
  installed: REDIS_SERVER !== undefined,
  missing: REDIS_MISSING,
  startServer: () => startRedisServer({ fsync: "everysec" }),
  storage: (url, namespace) => `${url}/0?prefix=${namespace}:`,
});
