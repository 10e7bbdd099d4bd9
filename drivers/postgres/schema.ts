/**
 * The Postgres driver's schema and its versioned migrations (docs/design/storage.md, "Postgres
 * driver"). Every process migrates on start inside one transaction that first takes a
 * transaction-scoped advisory lock, so processes starting together apply each migration once and
 * the others find the schema current. A schema newer than this code is refused, never touched.
 * @module
 */
import type postgres from "postgres";

/** A schema name is interpolated into DDL, so it is held to a plain lower-case identifier. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,39}$/;

/** Throws unless `schema` is a name the driver can use unquoted-safe in its DDL. */
export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`[agent-serve] [storage] postgres schema must match ${SCHEMA_NAME} (got ${JSON.stringify(schema)})`);
  }
}

/** The `NOTIFY` channel of a schema's commits: one per schema, so two schemas never hear each other. */
export const channelOf = (schema: string): string => `agent_serve:${schema}`;

/** The SQLSTATE the commit function raises on a stale `expected` or `expectedIndex`. */
export const CONFLICT_STATE = "AS409";

interface Migration {
  version: number;
  /** The DDL, with `S` standing for the quoted schema name. */
  sql: string;
}

/**
 * Append-only: a released migration is never edited, a change is a new version. Text columns
 * compared or sorted by key use the "C" collation, so the order is byte order, as on every other
 * driver, whatever the database's locale.
 */
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE S.records (
  ns text NOT NULL,
  key text COLLATE "C" NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (ns, key)
);
CREATE TABLE S.logs (
  ns text NOT NULL,
  log text COLLATE "C" NOT NULL,
  length bigint NOT NULL,
  PRIMARY KEY (ns, log)
);
CREATE TABLE S.lines (
  ns text NOT NULL,
  log text COLLATE "C" NOT NULL,
  idx bigint NOT NULL,
  line text NOT NULL,
  PRIMARY KEY (ns, log, idx)
);
CREATE TABLE S.leases (
  ns text NOT NULL,
  key text COLLATE "C" NOT NULL,
  owner text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (ns, key)
);

-- One commit, one statement: checks and writes in one transaction, locks taken in one global
-- order (records by key, then log heads by name) so two commits never deadlock each other.
-- A stale check raises ${CONFLICT_STATE}, which rolls back everything the call wrote.
CREATE FUNCTION S.commit_batch(
  p_ns text, p_channel text,
  r_keys text[], r_values text[], r_ops text[], r_checks text[], r_expected text[],
  a_logs text[], a_expected bigint[], a_counts int[], a_lines text[]
) RETURNS bigint[] LANGUAGE plpgsql AS $fn$
DECLARE
  i int;
  j int;
  lname text;
  total bigint;
  base bigint;
  pos bigint;
  cur text;
  offs int := 0;
  lengths jsonb := '{}';
  firsts bigint[] := '{}';
BEGIN
  FOR i IN SELECT u.o FROM unnest(r_keys) WITH ORDINALITY AS u(k, o) ORDER BY u.k COLLATE "C", u.o LOOP
    IF r_checks[i] = 'a' THEN
      IF r_ops[i] = 'd' THEN
        PERFORM 1 FROM S.records WHERE ns = p_ns AND key = r_keys[i] FOR UPDATE;
        IF FOUND THEN RAISE EXCEPTION USING ERRCODE = '${CONFLICT_STATE}', MESSAGE = 'record', DETAIL = i::text; END IF;
      ELSE
        INSERT INTO S.records (ns, key, value) VALUES (p_ns, r_keys[i], r_values[i]) ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN RAISE EXCEPTION USING ERRCODE = '${CONFLICT_STATE}', MESSAGE = 'record', DETAIL = i::text; END IF;
      END IF;
      CONTINUE;
    END IF;
    IF r_checks[i] = 'v' THEN
      SELECT value INTO cur FROM S.records WHERE ns = p_ns AND key = r_keys[i] FOR UPDATE;
      IF NOT FOUND OR cur <> r_expected[i] THEN
        RAISE EXCEPTION USING ERRCODE = '${CONFLICT_STATE}', MESSAGE = 'record', DETAIL = i::text;
      END IF;
    END IF;
    IF r_ops[i] = 'd' THEN
      DELETE FROM S.records WHERE ns = p_ns AND key = r_keys[i];
    ELSE
      INSERT INTO S.records (ns, key, value) VALUES (p_ns, r_keys[i], r_values[i])
        ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value;
    END IF;
  END LOOP;

  -- Each log's head row is locked and moved past every line of this commit at once; the
  -- appends then take their indexes from it in batch order.
  FOR lname, total IN SELECT u.l, sum(u.n) FROM unnest(a_logs, a_counts) AS u(l, n) GROUP BY u.l ORDER BY u.l COLLATE "C" LOOP
    IF total > 0 THEN
      INSERT INTO S.logs AS h (ns, log, length) VALUES (p_ns, lname, total)
        ON CONFLICT (ns, log) DO UPDATE SET length = h.length + EXCLUDED.length
        RETURNING h.length - total INTO base;
    ELSE
      SELECT h.length INTO base FROM S.logs AS h WHERE h.ns = p_ns AND h.log = lname;
      base := coalesce(base, 0);
    END IF;
    lengths := lengths || jsonb_build_object(lname, base);
  END LOOP;
  FOR j IN 1 .. coalesce(array_length(a_logs, 1), 0) LOOP
    pos := (lengths ->> a_logs[j])::bigint;
    IF a_expected[j] >= 0 AND a_expected[j] <> pos THEN
      RAISE EXCEPTION USING ERRCODE = '${CONFLICT_STATE}', MESSAGE = 'log', DETAIL = j::text || ' ' || pos::text;
    END IF;
    firsts := firsts || pos;
    IF a_counts[j] > 0 THEN
      INSERT INTO S.lines (ns, log, idx, line)
        SELECT p_ns, a_logs[j], pos + n - 1, a_lines[offs + n] FROM generate_series(1, a_counts[j]) AS n;
      -- Small on purpose: followers read the lines from the table (NOTIFY payloads are capped).
      PERFORM pg_notify(p_channel, json_build_array(p_ns, a_logs[j], pos, a_counts[j])::text);
    END IF;
    offs := offs + a_counts[j];
    lengths := jsonb_set(lengths, ARRAY[a_logs[j]], to_jsonb(pos + a_counts[j]));
  END LOOP;
  RETURN firsts;
END
$fn$;

-- Each statement of a plpgsql function takes a fresh snapshot: the lines are deleted after the
-- head's lock is held, so an append committing meanwhile leaves no line behind.
CREATE FUNCTION S.delete_log(p_ns text, p_log text) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM S.logs WHERE ns = p_ns AND log = p_log;
  DELETE FROM S.lines WHERE ns = p_ns AND log = p_log;
END
$fn$;
`,
  },
];

/** The newest schema version this code knows. */
export const SCHEMA_VERSION: number = MIGRATIONS.at(-1)!.version;

/**
 * Brings `schema` to {@link SCHEMA_VERSION}: creates it on first use, applies what is missing in
 * order, and refuses a schema a newer agent-serve has migrated past.
 */
export async function migrate(sql: postgres.Sql, schema: string): Promise<void> {
  assertSchemaName(schema);
  const S = `"${schema}"`;
  await sql.begin(async (tx) => {
    // Held until this transaction ends: concurrent starts apply migrations one after another.
    await tx`SELECT pg_advisory_xact_lock(hashtext(${`agent-serve:${schema}`}))`;
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${S}`);
    await tx.unsafe(`CREATE TABLE IF NOT EXISTS ${S}.schema_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const [row] = await tx.unsafe<Array<{ version: number }>>(`SELECT coalesce(max(version), 0)::int AS version FROM ${S}.schema_migrations`);
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(`[agent-serve] [storage] postgres schema ${schema} is at version ${current}, newer than this agent-serve knows (${SCHEMA_VERSION}): upgrade agent-serve`);
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await tx.unsafe(migration.sql.replace(/\bS\./g, `${S}.`));
      await tx.unsafe(`INSERT INTO ${S}.schema_migrations (version) VALUES (${migration.version})`);
    }
  });
}
