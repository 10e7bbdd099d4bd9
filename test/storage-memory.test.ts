import { createMemoryStorage } from "../src/entries/storage.ts";
import { testStorageDriver } from "./_storage-tests.ts";

testStorageDriver("memory", async () => ({ driver: createMemoryStorage(), cleanup: async () => {} }));
