import { createMemoryStorage } from "../src/storage/index.ts";
import { testStorageDriver } from "./_storage-tests.ts";

testStorageDriver("memory", async () => ({ driver: createMemoryStorage(), cleanup: async () => {} }));
