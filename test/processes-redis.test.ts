/**
 * The many-process suite (test/_processes-suite.ts) on one real `redis-server`.
 */
import { describeProcesses } from "./_processes-suite.ts";
import { REDIS_MISSING, REDIS_SERVER, startRedisServer } from "./_redis-server.ts";

describeProcesses({ name: "Redis", available: Boolean(REDIS_SERVER), missing: REDIS_MISSING, start: () => startRedisServer() });
