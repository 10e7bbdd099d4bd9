/**
 * The many-process suite (test/_processes-suite.ts) on one real Postgres server: the processes
 * share its database, forward to the lease holder, follow through LISTEN/NOTIFY and recover by
 * lease on the database's clock.
 */
import { describeProcesses } from "./_processes-suite.ts";
import { POSTGRES_BIN, POSTGRES_MISSING, startPostgresServer } from "./_postgres-server.ts";

describeProcesses({ name: "Postgres", available: Boolean(POSTGRES_BIN), missing: POSTGRES_MISSING, start: () => startPostgresServer() });
