import { OUTBOX_TABLE } from '@wallet/kit';
import pg from 'pg';

/**
 * Bytes on disk per transfer, per database and per table (heap, indexes, TOAST), after a VACUUM:
 * this machine's PostgreSQL runs with autovacuum off, and without it dead rows and unset
 * visibility would count as data. Sizes are what the files hold, free space in them included,
 * as an operator's disk sees them.
 */

export interface TableSize {
  table: string;
  heapBytes: number;
  indexBytes: number;
  toastBytes: number;
  rows: number;
}

export interface DatabaseSize {
  database: string;
  tables: TableSize[];
  totalBytes: number;
}

const tableBytes = (table: TableSize): number => table.heapBytes + table.indexBytes + table.toastBytes;

const TABLE_SIZES_SQL = `
  SELECT c.relname AS table,
         pg_relation_size(c.oid) AS heap_bytes,
         pg_indexes_size(c.oid) AS index_bytes,
         COALESCE(pg_total_relation_size(c.reltoastrelid), 0) AS toast_bytes,
         GREATEST(c.reltuples, 0)::bigint AS rows
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema()
   ORDER BY c.relname`;

/** One maintenance statement on its own connection (neither runs inside a transaction block). */
async function runAlone(connectionString: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** What autovacuum would have done by now: dead rows reclaimed, visibility and statistics set. */
export function vacuumAnalyze(connectionString: string): Promise<void> {
  return runAlone(connectionString, 'VACUUM (ANALYZE)');
}

/** A checkpoint of the whole server (any database of it will do), waited for: what a bulk write left dirty is on disk after it. */
export function checkpoint(connectionString: string): Promise<void> {
  return runAlone(connectionString, 'CHECKPOINT');
}

/** Vacuums and analyzes one database, then reads every table's size. */
export async function databaseSize(connectionString: string, label: string): Promise<DatabaseSize> {
  await vacuumAnalyze(connectionString);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const result = await client.query<{ table: string; heap_bytes: string; index_bytes: string; toast_bytes: string; rows: string }>(
      TABLE_SIZES_SQL,
    );
    const tables = result.rows.map((row) => ({
      table: row.table,
      heapBytes: Number(row.heap_bytes),
      indexBytes: Number(row.index_bytes),
      toastBytes: Number(row.toast_bytes),
      rows: Number(row.rows),
    }));
    return { database: label, tables, totalBytes: tables.reduce((sum, table) => sum + tableBytes(table), 0) };
  } finally {
    await client.end();
  }
}

function perTransfer(bytes: number, transfers: number): string {
  return (bytes / transfers).toFixed(0).padStart(7);
}

const YEAR_SECONDS = 365 * 24 * 3600;

/** Each service's `retention_window_seconds`, by `<service>.<table>`, scraped from its /metrics. */
export async function retentionWindows(metricsUrls: Record<string, string>): Promise<Map<string, number>> {
  const windows = new Map<string, number>();
  for (const [service, url] of Object.entries(metricsUrls)) {
    const text = await (await fetch(url)).text();
    for (const match of text.matchAll(/^retention_window_seconds\{table="([a-z_]+)"[^}]*\} (\S+)$/gm))
      windows.set(`${service}.${match[1]}`, Number(match[2]));
  }
  return windows;
}

/**
 * Queues, not history: an outbox row is deleted once the broker confirms its message, so the
 * table and its indexes (whose emptied pages vacuum hands back for reuse) hold the largest
 * backlog there was, whatever the history. Right after a load they still hold its pages.
 */
const QUEUE_TABLES = new Set([OUTBOX_TABLE]);

/**
 * What a table weighs after a year of this traffic: in full when kept for ever, its window's share
 * of the year when purged (a table whose window is a day holds a day of the year's rows).
 */
function steadyStateBytes(table: TableSize, window: number | undefined): number {
  if (QUEUE_TABLES.has(table.table)) return 0;
  return window === undefined ? tableBytes(table) : (tableBytes(table) * Math.min(window, YEAR_SECONDS)) / YEAR_SECONDS;
}

const formatWindow = (seconds: number): string =>
  seconds >= 86_400
    ? `${(seconds / 86_400).toFixed(0)} d`
    : seconds >= 3_600
      ? `${(seconds / 3_600).toFixed(0)} h`
      : `${(seconds / 60).toFixed(0)} min`;

/** Per database, then in all: bytes per transfer after a year of this traffic, with the windows the services reported. */
export function formatSteadyState(sizes: DatabaseSize[], transfers: number, windows: ReadonlyMap<string, number>): string[] {
  const lines = [
    `  at steady state, a year of this traffic: tables kept for ever in full, each purged table its retention window's share of the year (the services' retention_window_seconds), outboxes (queues) none`,
  ];
  let all = 0;
  for (const size of sizes) {
    const windowOf = (table: TableSize) => windows.get(`${size.database}.${table.table}`);
    const steady = size.tables.reduce((sum, table) => sum + steadyStateBytes(table, windowOf(table)), 0);
    all += steady;
    const purged = size.tables.flatMap((table) => {
      const window = windowOf(table);
      return window === undefined ? [] : [`${table.table} ${formatWindow(window)}`];
    });
    lines.push(
      `  ${size.database.padEnd(34)} ${perTransfer(steady, transfers)}${purged.length > 0 ? `  (purged: ${purged.join(', ')})` : ''}`,
    );
  }
  lines.push(`  ${'all databases at steady state'.padEnd(34)} ${perTransfer(all, transfers)}`);
  return lines;
}

/** The report: every database's bytes per transfer, then its tables that weigh at least 1 byte per transfer. */
export function formatStorageReport(sizes: DatabaseSize[], transfers: number): string[] {
  const lines = [`  storage after VACUUM, bytes per transfer (${transfers} transfers): total = heap + indexes + TOAST`];
  for (const size of sizes) {
    lines.push(`  ${size.database.padEnd(34)} ${perTransfer(size.totalBytes, transfers)}`);
    for (const table of [...size.tables].sort((a, b) => tableBytes(b) - tableBytes(a))) {
      const total = tableBytes(table);
      if (total / transfers < 1) continue;
      lines.push(
        `    ${table.table.padEnd(32)} ${perTransfer(total, transfers)}  (heap ${(table.heapBytes / transfers).toFixed(0)}, indexes ${(table.indexBytes / transfers).toFixed(0)}, toast ${(table.toastBytes / transfers).toFixed(0)}; ${table.rows} rows)`,
      );
    }
  }
  const journal = sizes
    .find((size) => size.database === 'ledger')
    ?.tables.filter((table) => table.table === 'journal_entries' || table.table === 'journal_lines')
    .reduce((sum, table) => sum + tableBytes(table), 0);
  if (journal !== undefined) lines.push(`  ${'the journal (entries + lines)'.padEnd(34)} ${perTransfer(journal, transfers)}`);
  const all = sizes.reduce((sum, size) => sum + size.totalBytes, 0);
  lines.push(`  ${'all databases'.padEnd(34)} ${perTransfer(all, transfers)}`);
  return lines;
}
