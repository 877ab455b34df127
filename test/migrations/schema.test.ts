import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createDb, migrate, type Migration } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import { migrations as gateway } from '../../services/gateway/migrations';
import { migrations as identity } from '../../services/identity/migrations';
import { migrations as ledger } from '../../services/ledger/migrations';
import { migrations as payments } from '../../services/payments/migrations';
import { migrations as treasury } from '../../services/treasury/migrations';

const run = promisify(execFile);

const SERVICES: ReadonlyArray<readonly [string, Migration[]]> = [
  ['gateway', gateway],
  ['identity', identity],
  ['ledger', ledger],
  ['payments', payments],
  ['treasury', treasury],
];

/** `UPDATE_SCHEMA_FIXTURES=1` rewrites the fixtures: only with a new migration, never to make a changed old one pass. */
const UPDATE = process.env.UPDATE_SCHEMA_FIXTURES === '1';

const fixturePath = (service: string): string => path.join(__dirname, `${service}.schema.sql`);

/**
 * `pg_dump --schema-only` without what differs between two dumps of one schema: comments (they
 * name the dump's time and the database), `SET` lines, the random key of `\restrict`, and the
 * moment the ledger's `command_key` was created at, which it keeps as its cut-off for ever.
 */
export function comparableSchema(dump: string): string {
  return dump
    .split('\n')
    .filter((line) => !/^(--|SET |SELECT pg_catalog\.set_config|\\restrict |\\unrestrict )/.test(line))
    .join('\n')
    .replace(/(sortable_id_ms\(command_id\) >= )\d+/g, '$1<migrated at>')
    .replace(/(plain MD5 for commands made before )\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '$1<migrated at>')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .concat('\n');
}

async function migratedSchema(service: string, list: Migration[]): Promise<string> {
  const url = await createTestDatabase(`schema_${service}`);
  const db = createDb(url, { poolMax: 2 });
  try {
    const tables = await db.raw<{ rows: unknown[] }>("SELECT 1 FROM pg_tables WHERE schemaname = 'public'");
    // From zero: a database that already held tables would not show what the migrations make.
    expect(tables.rows).toEqual([]);
    await migrate(db, list);
  } finally {
    await db.destroy();
  }
  const { stdout } = await run('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', `--dbname=${url}`], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return comparableSchema(stdout);
}

// Real parts: PostgreSQL, a fresh database per service, and pg_dump of the server's major version.
describe('the schema every service migrates to', () => {
  it.each(SERVICES)('%s: a fresh database migrates to exactly the committed schema', async (service, list) => {
    const schema = await migratedSchema(service, list);
    if (UPDATE) fs.writeFileSync(fixturePath(service), schema);
    expect(schema).toEqual(fs.readFileSync(fixturePath(service), 'utf8'));
  });
});
