import type { Db } from '@wallet/kit';
import { waitFor } from '@wallet/kit/testing';
import type { BackupSettings } from '../../scripts/lib/backups';
import { runOps } from '../../scripts/lib/ops-commands';

/** What the restore drills share: the ops commands as an operator types them, and the server's WAL and recovery as they wait on them. */

export interface OpsAnswer {
  code: number;
  out: string;
  err: string;
}

/** `npm run ops -- <argv>` against the drill's pgBackRest configuration; backups need no API client. */
export async function ops(settings: BackupSettings, ...argv: string[]): Promise<OpsAnswer> {
  let out = '';
  let err = '';
  const code = await runOps(argv, {
    client: () => {
      throw new Error('backups need no API client');
    },
    backups: () => settings,
    out: (line) => (out += `${line}\n`),
    err: (line) => (err += `${line}\n`),
  });
  return { code, out, err };
}

/**
 * Closes the current WAL segment and waits until the server archived it: recovery to a moment
 * reads the repository only, and stops at the first commit after the moment, which must be there.
 */
export async function archiveWalThroughNow(db: Db): Promise<void> {
  const segment = (await db.raw('SELECT pg_walfile_name(pg_switch_wal()) AS name')).rows[0].name as string;
  await waitFor(
    async () => {
      const archived = (await db.raw('SELECT last_archived_wal AS name FROM pg_stat_archiver')).rows[0].name as string | null;
      return archived !== null && archived >= segment ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200, what: `WAL segment ${segment} archived` },
  );
}

/** Waits until a restored server has replayed up to its moment and been promoted: before that it takes no writes. */
export async function openForWrites(db: Db): Promise<void> {
  await waitFor(async () => ((await db.raw('SELECT pg_is_in_recovery() AS standby')).rows[0].standby === false ? true : undefined), {
    timeoutMs: 60_000,
    intervalMs: 200,
    what: 'the restored server to open for writes',
  });
}
