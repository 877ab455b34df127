import type { Db } from './db';
import type { Logger } from './logger';
import { type Repeating, startRepeating } from './repeating';

export interface TableMaintenanceOptions {
  db: Db;
  logger: Logger;
  /** How often the service's tables are checked. */
  intervalMs?: number;
  /**
   * How long a table that was analyzed or vacuumed is left alone afterwards, as autovacuum
   * leaves a database between its rounds (`autovacuum_naptime`, one minute). A table never
   * analyzed is not held back: its first statistics are what the planner needs most.
   */
  tableNaptimeMs?: number;
  /** Runs even when the server's autovacuum is on (tests). */
  force?: boolean;
}

export interface TableMaintenance {
  /** True when this service looks after its own tables (the server's autovacuum is off). */
  readonly active: boolean;
  /** One check now: analyzes and vacuums the tables that need it; returns the tables it touched. */
  runOnce(): Promise<string[]>;
  stop(): Promise<void>;
}

interface TableActivity {
  table_name: string;
  needs_analyze: boolean;
  needs_vacuum: boolean;
  never_analyzed: boolean;
}

/** autovacuum_naptime's default. */
export const TABLE_NAPTIME_MS = 60_000;

// The thresholds autovacuum uses by default (50 rows + 10% changed for ANALYZE, 50 + 20% dead
// for VACUUM), so a table is looked after as it would be on a server with autovacuum on.
const TABLES_SQL = `
  SELECT s.relname AS table_name,
         s.n_mod_since_analyze > 50 + 0.1 * GREATEST(c.reltuples, 0) AS needs_analyze,
         s.n_dead_tup > 50 + 0.2 * GREATEST(c.reltuples, 0) AS needs_vacuum,
         s.last_analyze IS NULL AND s.last_autoanalyze IS NULL AS never_analyzed
  FROM pg_stat_user_tables s
  JOIN pg_class c ON c.oid = s.relid
  WHERE s.schemaname = current_schema()
    AND (s.n_mod_since_analyze > 50 + 0.1 * GREATEST(c.reltuples, 0) OR s.n_dead_tup > 50 + 0.2 * GREATEST(c.reltuples, 0))`;

function quoted(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

/**
 * Stands in for autovacuum when the server runs without it. Without statistics the planner
 * cannot tell a primary-key lookup from a scan of a tenant's whole index (it estimates both at
 * one row), and without vacuum the outbox's deleted rows pile up: both slow the hot path down
 * as tables grow. With autovacuum on (the normal case) this does nothing. SKIP_LOCKED keeps
 * instances of a service from queueing behind one another's run.
 */
export async function startTableMaintenance(options: TableMaintenanceOptions): Promise<TableMaintenance> {
  const setting = await options.db.raw<{ rows: Array<{ autovacuum: string }> }>(`SELECT current_setting('autovacuum') AS autovacuum`);
  const active = options.force === true || setting.rows[0]?.autovacuum !== 'on';
  const naptimeMs = options.tableNaptimeMs ?? TABLE_NAPTIME_MS;
  /** When this instance last analyzed or vacuumed each table (ms since the epoch). */
  const maintainedAt = new Map<string, number>();
  let repeating: Repeating | null = null;

  async function runOnce(): Promise<string[]> {
    const tables = await options.db.raw<{ rows: TableActivity[] }>(TABLES_SQL);
    const touched: string[] = [];
    for (const table of tables.rows) {
      const lastMs = maintainedAt.get(table.table_name);
      if (!table.never_analyzed && lastMs !== undefined && Date.now() - lastMs < naptimeMs) continue;
      const name = quoted(table.table_name);
      if (table.needs_vacuum) await options.db.raw(`VACUUM (ANALYZE, SKIP_LOCKED) ${name}`);
      else if (table.needs_analyze) await options.db.raw(`ANALYZE (SKIP_LOCKED) ${name}`);
      maintainedAt.set(table.table_name, Date.now());
      touched.push(table.table_name);
    }
    return touched;
  }

  if (active) {
    options.logger.warn('autovacuum is off on this PostgreSQL server: the service analyzes and vacuums its own tables');
    // A round still running (a long VACUUM) is not queued behind: the next tick looks again.
    repeating = startRepeating(runOnce, {
      intervalMs: options.intervalMs ?? 10_000,
      onError: (error) => options.logger.warn({ err: error }, 'table maintenance failed; retried on the next round'),
    });
  }

  return {
    active,
    runOnce,
    async stop() {
      await repeating?.stop();
    },
  };
}
