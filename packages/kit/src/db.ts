import { createHash } from 'node:crypto';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import type { Logger } from './logger';
import { databaseHosts, databaseName, PrimaryResolver, primaryUrlOf, urlForDatabase } from './postgres-primary';

export type Db = Knex;
export type Tx = Knex.Transaction;

/**
 * A row as read (snake_case columns) as the record that stores it, field for column
 * (`journal_entry_id` is `journalEntryId`): for a record whose fields are its columns.
 */
export function camelCased<Stored>(row: object): Stored {
  const record: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) record[fieldOf(column)] = value;
  return record as Stored;
}

const fieldNames = new Map<string, string>();

/** A column's field name, worked out once: reconciliation's full runs convert millions of rows. */
function fieldOf(column: string): string {
  let field = fieldNames.get(column);
  if (field === undefined) {
    field = column.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
    fieldNames.set(column, field);
  }
  return field;
}

const statementNames = new Map<string, string>();

function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `s_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  return name;
}

const positionalTexts = new Map<string, string>();

/** knex's `?` placeholders as PostgreSQL's `$1, $2, ...` (`\\?` stays a literal `?`), once per text. */
function positionalText(sql: string): string {
  let text = positionalTexts.get(sql);
  if (text === undefined) {
    let count = 0;
    text = sql.replace(/(\\*)(\?)/g, (_match, escapes: string) => (escapes.length % 2 ? '?' : `$${(count += 1)}`));
    positionalTexts.set(sql, text);
  }
  return text;
}

/** An escape JSON writes that an array literal would read differently (a control character, a lone surrogate). */
const JSON_ONLY_ESCAPE = /\\[bfnrtu]/;

/**
 * A one-dimensional array of strings, finite numbers, booleans and nulls as PostgreSQL's array
 * literal, written by the engine's JSON.stringify: within double quotes both escape only `"`
 * and `\` with a backslash, and both write null unquoted. node-postgres builds the literal in
 * JavaScript with two regular-expression replaces per element, which for the JSON texts the hot
 * statements carry (answers, outbox payloads, ledger results) was the largest allocation of the
 * ledger and a tenth of payments'. Anything else, or a text JSON escapes in its own way (control
 * characters, lone surrogates), is left to node-postgres.
 */
export function arrayLiteral(values: readonly unknown[]): string | null {
  for (const value of values) {
    const kind = typeof value;
    if (value === null || kind === 'string' || kind === 'boolean') continue;
    if (kind === 'number' && Number.isFinite(value)) continue;
    return null;
  }
  const json = JSON.stringify(values);
  if (JSON_ONLY_ESCAPE.test(json)) return null;
  return `{${json.slice(1, -1)}}`;
}

function parameterOf(binding: unknown): unknown {
  if (!Array.isArray(binding)) return binding;
  return arrayLiteral(binding) ?? binding;
}

/** The part of knex's client that hands out its pooled pg connections (a transaction's client hands out its own). */
interface ConnectionSource {
  acquireConnection(): Promise<pg.ClientBase>;
  releaseConnection(connection: pg.ClientBase): Promise<unknown>;
}

/**
 * `sql` with its `?` bindings as a named prepared statement: each pooled connection parses and
 * plans it once, then only binds and executes it, where an unnamed query is parsed and planned
 * on every call (a third of PostgreSQL's time on the hot paths). The name is derived from the
 * text, so only use it for SQL whose text is fixed (values in bindings, lists as arrays with
 * `= ANY(?)`), never for text that varies per call.
 *
 * It runs on the pool's (or the transaction's) pg connection directly: these statements are
 * the hot paths, where knex's per-call query building cost more than the rest of the call.
 * Bindings are values only (no knex.raw parts), each one parameter: an array binds as one
 * PostgreSQL array. Resolves to pg's result, as `db.raw` does.
 */
export async function prepared<Result = unknown>(db: Db | Tx, sql: string, bindings: readonly Knex.RawBinding[] = []): Promise<Result> {
  if ('isCompleted' in db && db.isCompleted()) throw new Error('prepared statement on a transaction that already finished');
  const undefinedAt = bindings.indexOf(undefined as unknown as Knex.RawBinding);
  if (undefinedAt !== -1) throw new Error(`undefined binding at position ${undefinedAt + 1} of a prepared statement`);
  const source = db.client as unknown as ConnectionSource;
  const connection = await source.acquireConnection();
  try {
    const result = await connection.query({ name: statementName(sql), text: positionalText(sql), values: bindings.map(parameterOf) });
    return result as unknown as Result;
  } finally {
    await source.releaseConnection(connection);
  }
}

/**
 * A session advisory lock keyed by `name`, on a pooled connection held until `release`, or null at once when another
 * session holds it: one instance at a time does a job, and others can tell that it is still being done. No transaction
 * stays open meanwhile (the server ends one left idle), and a crashed holder's lock goes with its connection.
 */
export async function holdSessionLock(db: Db, name: string): Promise<{ release(): Promise<void> } | null> {
  const source = db.client as unknown as ConnectionSource;
  const connection = await source.acquireConnection();
  try {
    const taken = await connection.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken', [name]);
    if (!taken.rows[0]?.taken) {
      await source.releaseConnection(connection);
      return null;
    }
  } catch (error) {
    await source.releaseConnection(connection);
    throw error;
  }
  return {
    async release() {
      try {
        await connection.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [name]);
      } finally {
        await source.releaseConnection(connection);
      }
    },
  };
}

/** `work` under holdSessionLock's lock, or null at once when another session holds it. */
export async function withSessionLock<Result>(db: Db, name: string, work: () => Promise<Result>): Promise<Result | null> {
  const held = await holdSessionLock(db, name);
  if (!held) return null;
  try {
    return await work();
  } finally {
    await held.release();
  }
}

/**
 * SQL with its `?` bindings, to embed in a caller's own statement (a `WITH ... AS (...)` part):
 * several writes then commit as one statement, with one round trip and no open transaction.
 */
export interface SqlStatement {
  sql: string;
  bindings: readonly Knex.RawBinding[];
}

/** A migration as a module of `services/<name>/migrations/`. */
export interface Migration {
  name: string;
  up: (db: Knex) => Promise<void>;
  down?: (db: Knex) => Promise<void>;
  /**
   * False for a migration PostgreSQL refuses inside a transaction (CREATE INDEX CONCURRENTLY,
   * which builds an index on a live table without holding its writers back): it runs on its own.
   */
  transaction?: boolean;
}

// int8 counts and ids come back as strings by default; NUMERIC stays a string too (money).
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => value);

/**
 * `logger` takes knex's own warnings (a connection that could not be opened, one that ended),
 * which it otherwise prints to the console, once per attempt all through a database outage.
 */
export interface DbOptions {
  poolMax?: number;
  applicationName?: string;
  logger?: Logger;
  /**
   * A session idle this long inside a transaction is ended by the server, which rolls the
   * transaction back and frees its locks: a frozen process cannot hold them for good.
   */
  idleInTransactionTimeoutMs?: number;
}

export function createDb(url: string, options: DbOptions = {}): Db {
  const { logger } = options;
  const session = {
    application_name: options.applicationName ?? 'wallet',
    ...(options.idleInTransactionTimeoutMs !== undefined
      ? { idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs }
      : {}),
  };
  return knex({
    client: 'pg',
    connection: connectionOf(url, session),
    pool: { min: 0, max: options.poolMax ?? 10 },
    acquireConnectionTimeout: 10_000,
    ...(logger
      ? {
          log: {
            warn: (message: unknown) => logger.warn({ knex: String(message) }, 'database client warning'),
            error: (message: unknown) => logger.error({ knex: String(message) }, 'database client error'),
            deprecate: (message: unknown) => logger.warn({ knex: String(message) }, 'database client deprecation'),
            debug: (message: unknown) => logger.debug({ knex: String(message) }, 'database client debug'),
          },
        }
      : {}),
  });
}

/**
 * One host: a plain connection string. Several (a primary and its standbys): the current
 * primary's (PrimaryResolver, asked again in the background once its answer is a second old).
 * knex asks the expiration checker at every checkout and, when it says expired, reloads the
 * settings and drops that connection: it says so only once the primary is another host, so a
 * failover drops the connections to the old primary and nothing else does.
 */
function connectionOf(
  url: string,
  session: { application_name: string; idle_in_transaction_session_timeout?: number },
): Knex.Config['connection'] {
  if (databaseHosts(url).length <= 1) return { connectionString: url, ...session };
  const primary = new PrimaryResolver(url);
  return async () => {
    const connectionString = await primary.primaryUrl();
    return { connectionString, ...session, expirationChecker: () => primary.changedFrom(connectionString) };
  };
}

/** Creates the database named in `url` when it does not exist yet (on the primary, when `url` names several hosts). */
export async function ensureDatabase(url: string): Promise<void> {
  const name = databaseName(url) ?? '';
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`refusing to create database with name ${JSON.stringify(name)}`);
  const client = new pg.Client({ connectionString: await primaryUrlOf(urlForDatabase(url, 'postgres')) });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } catch (error) {
        // Two instances racing to create it: the loser finds it made (42P04), or loses on the
        // catalogue's unique index (23505) when both passed the check at once.
        if (!['42P04', '23505'].includes((error as { code?: string }).code ?? '')) throw error;
      }
    }
  } finally {
    await client.end();
  }
}

/** Applies the service's migrations in order; the list is explicit, so nothing is loaded from disk by name. */
export async function migrate(db: Db, migrations: Migration[]): Promise<void> {
  const source: Knex.MigrationSource<Migration> = {
    getMigrations: async () => migrations,
    getMigrationName: (migration) => migration.name,
    getMigration: async (migration) => {
      const loaded: Knex.Migration & { config: { transaction: boolean } } = {
        up: migration.up,
        down: migration.down ?? (async () => undefined),
        config: { transaction: migration.transaction ?? true },
      };
      return loaded;
    },
  };
  await latestWhenUnlocked(db, source);
  await requireOrderedSequences(db);
}

/** The advisory lock of a database's migrations (its own database's: PostgreSQL scopes them so), keyed by name as elsewhere. */
const MIGRATION_LOCK = 'migrations';

/**
 * Instances started side by side would race: knex's lock row fails all but one at once, and two
 * meeting a new database both create knex's own tables. A session's advisory lock, on a
 * connection of its own outside the pool, makes the others wait; they then find nothing to apply.
 * Closing that connection releases it, whatever happened meanwhile. The others ask again and
 * again rather than wait inside one statement: a waiting statement holds a snapshot, which a
 * migration's CREATE INDEX CONCURRENTLY would wait out, and the lock's holder waits for that
 * migration.
 */
async function latestWhenUnlocked(db: Db, migrationSource: Knex.MigrationSource<Migration>): Promise<void> {
  // createDb's connection: settings, or a function resolving the current primary's.
  const configured = db.client.config.connection as pg.ClientConfig | (() => Promise<pg.ClientConfig>);
  const client = new pg.Client(typeof configured === 'function' ? await configured() : configured);
  await client.connect();
  try {
    for (;;) {
      const taken = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken', [
        MIGRATION_LOCK,
      ]);
      if (taken.rows[0]?.taken) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await db.migrate.latest({ migrationSource });
  } finally {
    await client.end();
  }
}

/**
 * Refuses a schema whose sequences hand out values from a per-session cache. Reconciliation's
 * high-water marks and the journal's stamp sealing rest on "a transaction that takes a seq later
 * gets a higher one"; with `CACHE n`, a session may write a seq below others long committed, which a
 * checkpoint or a sealed range would then never see. A service does not start on such a schema.
 */
export async function requireOrderedSequences(db: Db): Promise<void> {
  const cached = await db.raw<{ rows: Array<{ name: string; cache_size: string }> }>(
    `SELECT sequencename AS name, cache_size::text FROM pg_sequences WHERE schemaname = current_schema() AND cache_size > 1 ORDER BY sequencename`,
  );
  if (cached.rows.length === 0) return;
  const names = cached.rows.map((row) => `${row.name} (CACHE ${row.cache_size})`).join(', ');
  throw new Error(`sequences must hand out their values in order, with CACHE 1: ${names}; run ALTER SEQUENCE <name> CACHE 1`);
}

/**
 * Builds an index without blocking the table's writers, for a migration with `transaction:
 * false`. A build that failed half way leaves an invalid index that IF NOT EXISTS would keep,
 * so one is dropped first. `definition` is what follows `ON`: `table USING brin (column)`.
 */
export async function createIndexConcurrently(db: Knex, name: string, definition: string): Promise<void> {
  const invalid = await db.raw<{ rows: unknown[] }>(
    `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ? AND c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid`,
    [name],
  );
  if (invalid.rows.length > 0) await db.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
  await db.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON ${definition}`);
}

export async function checkDb(db: Db): Promise<void> {
  await db.raw('SELECT 1');
}

/** Passes a JS array as one PostgreSQL array parameter (`?::text[]`), nulls included. */
export function sqlArray(values: ReadonlyArray<string | number | boolean | null>): Knex.Value {
  return values as unknown as Knex.Value;
}

/**
 * A record's creation (`alias`.created_at) as epoch milliseconds in text, column created_at_ms:
 * a full reconciliation run reads millions of rows, and parsing a timestamp's text into a Date
 * took more of its time than any other column.
 */
export function createdAtMsColumn(db: Knex, alias: string): Knex.Raw {
  return db.raw(`floor(extract(epoch FROM ${alias}.created_at) * 1000)::bigint::text AS created_at_ms`);
}

/** A table's columns as `alias`.column, or bare without an alias. */
function qualified(alias: string | null, column: string): string {
  return alias === null ? column : `${alias}.${column}`;
}

/**
 * The rows of `query` (on a record table, as `alias`) with the given ids, within `scope` when one
 * is given. The ids are bound as one array: a list of a thousand parameters costs more to plan
 * than to run.
 */
export function withIdsIn(
  query: Knex.QueryBuilder,
  alias: string | null,
  scope: { tenantId: string; environment: string } | null,
  ids: readonly string[],
): Knex.QueryBuilder {
  query.whereRaw(`${qualified(alias, 'id')} = ANY(?::text[])`, [sqlArray(ids)]);
  if (scope) query.where({ [qualified(alias, 'tenant_id')]: scope.tenantId, [qualified(alias, 'environment')]: scope.environment });
  return query;
}

/** The rows of `query` (as `alias`) of a scope after a seq, in seq order, at most `limit`. */
export function scopeAfterSeq(
  query: Knex.QueryBuilder,
  alias: string | null,
  scope: { tenantId: string; environment: string },
  afterSeq: string,
  limit: number,
): Knex.QueryBuilder {
  return query
    .where({ [qualified(alias, 'tenant_id')]: scope.tenantId, [qualified(alias, 'environment')]: scope.environment })
    .where(qualified(alias, 'seq'), '>', afterSeq)
    .orderBy(qualified(alias, 'seq'))
    .limit(limit);
}

/**
 * A record table's reads by id and after a seq (what reconciliation reads), from `query` (the
 * table as `alias`, joined with what its records need) and `toRecord`.
 */
export function recordReads<Row, Stored>(query: (db: Db) => Knex.QueryBuilder, alias: string | null, toRecord: (row: Row) => Stored) {
  return {
    /** Records by id, of any status; within the scope when one is given. */
    byIds: async (db: Db, scope: { tenantId: string; environment: string } | null, ids: readonly string[]): Promise<Stored[]> => {
      if (ids.length === 0) return [];
      const rows: Row[] = await withIdsIn(query(db), alias, scope, ids);
      return rows.map(toRecord);
    },
    /** A scope's records after a seq, in seq order, at most `limit`. */
    after: async (db: Db, scope: { tenantId: string; environment: string }, afterSeq: string, limit: number): Promise<Stored[]> => {
      const rows: Row[] = await scopeAfterSeq(query(db), alias, scope, afterSeq, limit);
      return rows.map(toRecord);
    },
  };
}

/** A record of a scope by its id, as `columns` of its row; undefined when the scope has none of that id. */
export function findInScope(
  db: Db | Tx,
  table: string,
  scope: { tenantId: string; environment: string },
  id: string,
  columns: readonly string[],
): Promise<object | undefined> {
  return db(table).where({ tenant_id: scope.tenantId, environment: scope.environment, id }).first(columns);
}
