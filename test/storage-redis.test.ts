import { afterAll, beforeAll, describe } from "vitest";
import { createRedisStorage } from "../drivers/redis/index.ts";
import { type RedisServer, REDIS_MISSING, REDIS_SERVER, startRedisServer } from "./_redis-server.ts";
import { testStorageDriver } from "./_storage-tests.ts";

describe.skipIf(!REDIS_SERVER)(`redis store${REDIS_MISSING}`, () => {
  let server: RedisServer;
  let n = 0;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  testStorageDriver("redis", async () => {
    const driver = createRedisStorage({ url: server.url, prefix: `t${++n}:` });
    return { driver, cleanup: () => driver.close() };
  });
});
