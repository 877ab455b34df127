import { parseArgs } from 'node:util';
import { DEAD_LETTER_QUEUES, type DeadLetterSummary } from '@wallet/contracts';
import { isWalletApiError, type WalletClient } from '@wallet/sdk';
import { backedUpServer, backup, type BackupSettings, listBackups, restoreTo } from './backups';

export const OPS_USAGE = `Usage: npm run ops -- <command>

  dlq list [--queue <queue>] [--limit <n>] [--json]   messages parked in the dead-letter queues
  dlq show <id>                                        one of them: why it died, properties, headers, body
  dlq replay <id>                                      deliver it again to the queue it died in
  dlq replay --all [--queue <queue>] [--limit <n>]     replay up to <n> (default 100), oldest first
  dlq discard <id>                                     remove it without delivering it

  backup [--type full|diff|incr]                      a pgBackRest base backup of the server, full by default
  backups                                              the repository's backups: when each began and ended
  restore --to <time>                                  the server as it was at <time> (ISO 8601): stopped,
                                                       rebuilt from the backups and archived WAL, started

Replays and discards are audited. A replayed message goes through its consumer again, which
drops what it already applied: replaying twice changes nothing the second time.

Queues: ${DEAD_LETTER_QUEUES.join(', ')}

Environment:
  PGBACKREST_CONFIG the pgBackRest configuration (default /etc/pgbackrest.conf): repository and server
  PGBACKREST_STANZA its stanza (default wallet)
  ADMIN_URL        the gateway's admin listener (default http://127.0.0.1:$ADMIN_PORT, or 8081)
  SYSTEM_API_KEY   the platform operator's key (default: the development key npm start generated)
`;

export interface OpsIo {
  /** Made only when a command needs it, so --help works without credentials. */
  client: () => WalletClient;
  /** pgBackRest's configuration file and stanza, for backup, backups and restore. */
  backups: () => BackupSettings;
  out: (line: string) => void;
  err: (line: string) => void;
}

class UsageError extends Error {}

const OPTIONS = {
  queue: { type: 'string' },
  limit: { type: 'string' },
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  type: { type: 'string' },
  to: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs one ops command; answers the process exit code (0 done, 1 refused or failed, 2 bad usage). */
export async function runOps(argv: readonly string[], io: OpsIo): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
    const [area, command, id, ...extra] = positionals;
    if (values.help || area === undefined || area === 'help') {
      io.out(OPS_USAGE);
      return 0;
    }
    if (BACKUP_COMMANDS.has(area)) {
      if (command !== undefined) throw new UsageError(`unexpected arguments: ${positionals.slice(1).join(' ')}`);
      await backupCommand(area, values, io);
      return 0;
    }
    if (area !== 'dlq') throw new UsageError(`unknown command: ${area}`);
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
    await deadLetterCommand(command, id, values, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: unknown }).code?.toString().startsWith('ERR_PARSE_ARGS')) {
      io.err(`${(error as Error).message}\n\n${OPS_USAGE}`);
      return 2;
    }
    if (isWalletApiError(error)) {
      io.err(`${error.status} ${error.code}: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

type Flags = { queue?: string | undefined; limit?: string | undefined; all?: boolean | undefined; json?: boolean | undefined };

async function deadLetterCommand(command: string | undefined, id: string | undefined, flags: Flags, io: OpsIo): Promise<void> {
  const deadLetters = () => io.client().system.deadLetters;
  switch (command) {
    case 'list': {
      const listed = await deadLetters().list({ ...queueOf(flags), ...limitOf(flags) });
      if (flags.json) return io.out(JSON.stringify(listed, null, 2));
      for (const queue of listed.queues)
        io.out(`${queue.queue.padEnd(28)} ${queue.messages === null ? 'not declared' : `${queue.messages} parked`}`);
      io.out('');
      return io.out(table(listed.data));
    }
    case 'show':
      return io.out(JSON.stringify(await deadLetters().get(required(id)), null, 2));
    case 'replay': {
      if (flags.all) {
        if (id !== undefined) throw new UsageError('give an id or --all, not both');
        const { replayed } = await deadLetters().replayAll({ ...queueOf(flags), ...limitOf(flags) });
        io.out(`replayed ${replayed.length}`);
        return replayed.length > 0 ? io.out(table(replayed)) : undefined;
      }
      const { deadLetter } = await deadLetters().replay(required(id));
      return io.out(`replayed ${deadLetter.id} from ${deadLetter.queue} to ${deadLetter.originalQueue ?? '?'}`);
    }
    case 'discard': {
      const { deadLetter } = await deadLetters().discard(required(id));
      return io.out(`discarded ${deadLetter.id} from ${deadLetter.queue}`);
    }
    default:
      throw new UsageError(command === undefined ? 'dlq needs a command' : `unknown dlq command: ${command}`);
  }
}

const BACKUP_COMMANDS = new Set(['backup', 'backups', 'restore']);
const BACKUP_TYPES = ['full', 'diff', 'incr'] as const;

async function backupCommand(command: string, flags: { type?: string | undefined; to?: string | undefined }, io: OpsIo): Promise<void> {
  const settings = io.backups();
  if (command === 'backups') {
    for (const each of await listBackups(settings))
      io.out(`${each.label.padEnd(36)} ${each.type.padEnd(5)} ${each.startedAt} - ${each.stoppedAt}`);
    return;
  }
  if (command === 'backup') {
    const type = BACKUP_TYPES.find((each) => each === (flags.type ?? 'full'));
    if (!type) throw new UsageError(`--type must be full, diff or incr: ${flags.type}`);
    await backup(settings, type);
    const made = (await listBackups(settings)).at(-1);
    return io.out(`backed up: ${made ? `${made.label}, ${made.startedAt} - ${made.stoppedAt}` : 'no backup listed'}`);
  }
  const to = flags.to === undefined ? Number.NaN : Date.parse(flags.to);
  if (Number.isNaN(to)) throw new UsageError('restore needs --to <time>, an ISO 8601 moment such as 2026-12-02T10:15:00Z');
  await restoreTo(settings, new Date(to));
  io.out(`restored ${backedUpServer(settings).dataDir} to ${new Date(to).toISOString()}; the server is started`);
}

function required(id: string | undefined): string {
  if (id === undefined) throw new UsageError('this command needs a dead letter id (see dlq list)');
  return id;
}

function queueOf(flags: Flags): { queue?: (typeof DEAD_LETTER_QUEUES)[number] } {
  if (flags.queue === undefined) return {};
  const queue = DEAD_LETTER_QUEUES.find((each) => each === flags.queue);
  if (!queue) throw new UsageError(`unknown queue: ${flags.queue}`);
  return { queue };
}

function limitOf(flags: Flags): { limit?: number } {
  if (flags.limit === undefined) return {};
  if (!/^\d+$/.test(flags.limit)) throw new UsageError(`--limit must be a whole number: ${flags.limit}`);
  return { limit: Number(flags.limit) };
}

const COLUMNS: Array<[string, (deadLetter: DeadLetterSummary) => string]> = [
  ['ID', (deadLetter) => deadLetter.id],
  ['QUEUE', (deadLetter) => deadLetter.queue],
  ['FROM', (deadLetter) => deadLetter.originalQueue ?? '-'],
  ['REASON', (deadLetter) => deadLetter.reason ?? '-'],
  ['DEAD-LETTERED AT', (deadLetter) => deadLetter.deadLetteredAt ?? '-'],
  ['TYPE', (deadLetter) => deadLetter.type ?? '-'],
  ['MESSAGE ID', (deadLetter) => deadLetter.messageId ?? '-'],
];

function table(rows: readonly DeadLetterSummary[]): string {
  if (rows.length === 0) return 'no dead letters';
  const cells = [COLUMNS.map(([title]) => title), ...rows.map((row) => COLUMNS.map(([, cell]) => cell(row)))];
  const widths = COLUMNS.map((_column, index) => Math.max(...cells.map((line) => (line[index] ?? '').length)));
  return cells
    .map((line) =>
      line
        .map((cell, index) => cell.padEnd(widths[index] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
