import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createDb, migrate, type Migration } from '../packages/kit/src/db';
import { ensureTemplateDatabase, filesHash } from '../packages/kit/src/testing/servers';
import { migrations as gateway } from '../services/gateway/migrations';
import { migrations as identity } from '../services/identity/migrations';
import { migrations as ledger } from '../services/ledger/migrations';
import { migrations as payments } from '../services/payments/migrations';
import { migrations as treasury } from '../services/treasury/migrations';

const ROOT = path.resolve(__dirname, '..');
const SERVICE_MIGRATIONS: Record<string, Migration[]> = { gateway, identity, ledger, payments, treasury };

/**
 * The template a service's migrated test databases are copied from. Its name holds a hash of the
 * service's migration files and of the knex that runs them, so a changed migration makes a new
 * template and no run ever copies a stale one; an unchanged template is kept for the next run.
 */
export function templateName(service: string): string {
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'node_modules/knex/package.json'), 'utf8')) as { version: string };
  return `wallet_tpl_${service}_${filesHash([path.join(ROOT, 'services', service, 'migrations')], `knex ${version}`)}`;
}

/** Makes each service's template that does not exist yet (migrated from zero); gives service to template name. */
export async function migratedTemplates(serverUrl: string): Promise<Record<string, string>> {
  const built = await Promise.all(
    Object.entries(SERVICE_MIGRATIONS).map(async ([service, migrations]) => {
      const name = templateName(service);
      await ensureTemplateDatabase(serverUrl, name, async (url) => {
        const db = createDb(url, { poolMax: 1 });
        try {
          await migrate(db, migrations);
        } finally {
          await db.destroy();
        }
      });
      return [service, name] as const;
    }),
  );
  return Object.fromEntries(built);
}
