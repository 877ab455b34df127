import { existsSync, readFileSync } from 'node:fs';
import { WalletClient } from '@wallet/sdk';
import { DEV_SECRETS_FILE } from './dev-secrets';
import { DEFAULT_STANZA } from './lib/backups';
import { runOps } from './lib/ops-commands';

/**
 * `npm run ops -- <command>`: the platform operator's tooling over the system surface, through
 * the SDK, and over pgBackRest's backups (`npm run ops -- --help` lists the commands). ADMIN_URL (default
 * http://127.0.0.1:$ADMIN_PORT or 8081) and SYSTEM_API_KEY (default: the development key
 * `npm start` generated) say which system and as whom.
 */

function systemKey(): string {
  if (process.env.SYSTEM_API_KEY) return process.env.SYSTEM_API_KEY;
  if (existsSync(DEV_SECRETS_FILE))
    return (JSON.parse(readFileSync(DEV_SECRETS_FILE, 'utf8')) as { SYSTEM_API_KEY: string }).SYSTEM_API_KEY;
  throw new Error(
    `No SYSTEM_API_KEY set and no development key in ${DEV_SECRETS_FILE}: set SYSTEM_API_KEY, or start the system with \`npm start\` first`,
  );
}

function client(): WalletClient {
  const adminUrl = process.env.ADMIN_URL ?? `http://127.0.0.1:${process.env.ADMIN_PORT ?? 8081}`;
  return new WalletClient({ baseUrl: adminUrl, auth: { type: 'system', systemKey: systemKey() } });
}

runOps(process.argv.slice(2), {
  client,
  backups: () => ({
    configFile: process.env.PGBACKREST_CONFIG ?? '/etc/pgbackrest.conf',
    stanza: process.env.PGBACKREST_STANZA ?? DEFAULT_STANZA,
  }),
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
