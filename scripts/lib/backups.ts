import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { asPostgres, crashNode, type PostgresNode, startNode } from './postgres-nodes';
import { serviceUser } from './service-user';

/**
 * Backups with pgBackRest (Debian's pgbackrest package), as its authors intend: PostgreSQL
 * archives every WAL segment into the repository (`archive_command = pgbackrest … archive-push`),
 * `backup` adds base backups, and `restore --type=time` rebuilds the data folder from the last
 * base backup before that moment plus the archived WAL up to it. Everything pgBackRest needs to
 * know is in its configuration file; these are the few commands around it.
 */

export interface BackupSettings {
  /** pgbackrest.conf: the repository (`repo1-path`) and the stanza's server (`pg1-path`, `pg1-port`). */
  configFile: string;
  stanza: string;
}

export const DEFAULT_STANZA = 'wallet';

/** A stanza's servers: one, or a formation's nodes (pgBackRest backs up whichever is the primary). */
export interface BackupStanza {
  stanza: string;
  servers: readonly PostgresNode[];
  /** Where their PostgreSQL listens for local connections (`unix_socket_directories`). */
  socketDir: string;
}

/** pgbackrest.conf for stanzas sharing one repository folder: full backups kept two at a time, with their WAL. */
export function pgBackRestConfig(options: { stanzas: readonly BackupStanza[]; repoPath: string; workDir: string }): string {
  const global = [
    '[global]',
    `repo1-path=${options.repoPath}`,
    'repo1-retention-full=2',
    `lock-path=${options.workDir}`,
    `log-path=${options.workDir}`,
    'log-level-console=warn',
    'start-fast=y',
    '',
  ];
  const stanzas = options.stanzas.flatMap((stanza) => [
    `[${stanza.stanza}]`,
    ...stanza.servers.flatMap((server, index) => [
      `pg${index + 1}-path=${server.dataDir}`,
      `pg${index + 1}-port=${server.port}`,
      `pg${index + 1}-socket-path=${stanza.socketDir}`,
    ]),
    '',
  ]);
  return [...global, ...stanzas].join('\n');
}

/** Writes `configFile` for these stanzas and makes the repository and work folders, the postgres user's. */
export function writeBackupConfig(
  configFile: string,
  options: { stanzas: readonly BackupStanza[]; repoPath: string; workDir: string },
): void {
  const owner = serviceUser('postgres');
  for (const folder of [options.repoPath, options.workDir]) {
    mkdirSync(folder, { recursive: true });
    if (owner) chownSync(folder, owner.uid, owner.gid);
  }
  writeFileSync(configFile, pgBackRestConfig(options));
}

/**
 * The server settings that archive every WAL segment into the repository. The command runs in
 * the data folder, whose path it gives as pg1-path: a formation's standby has its primary's
 * settings (copied with its data), and once promoted it archives from its own folder.
 */
export function archivingSettings(settings: BackupSettings): Record<string, string> {
  return {
    archive_mode: 'on',
    archive_command: `'pgbackrest --config=${settings.configFile} --stanza=${settings.stanza} --pg1-path="$PWD" archive-push %p'`,
    wal_level: 'replica',
  };
}

const PGBACKREST = '/usr/bin/pgbackrest';

function pgbackrest(settings: BackupSettings, command: string, options: string[] = []): Promise<string> {
  if (!existsSync(PGBACKREST)) throw new Error(`${PGBACKREST} is missing: install Debian's pgbackrest package (.ci/run does)`);
  return asPostgres(PGBACKREST, [`--config=${settings.configFile}`, `--stanza=${settings.stanza}`, ...options, command]);
}

/** Makes the stanza's repository and checks that the server archives into it. */
export async function createStanza(settings: BackupSettings): Promise<void> {
  await pgbackrest(settings, 'stanza-create');
  await pgbackrest(settings, 'check');
}

/** A base backup of the server as it runs; `full` unless told otherwise. */
export async function backup(settings: BackupSettings, type: 'full' | 'diff' | 'incr' = 'full'): Promise<void> {
  await pgbackrest(settings, 'backup', [`--type=${type}`]);
}

export interface BackupInfo {
  label: string;
  type: string;
  /** When the backup began and ended; it restores to any moment after `stoppedAt`. */
  startedAt: string;
  stoppedAt: string;
}

/** The repository's backups, oldest first. */
export async function listBackups(settings: BackupSettings): Promise<BackupInfo[]> {
  const info = JSON.parse(await pgbackrest(settings, 'info', ['--output=json'])) as Array<{
    backup?: Array<{ label: string; type: string; timestamp: { start: number; stop: number } }>;
  }>;
  return (info[0]?.backup ?? []).map((each) => ({
    label: each.label,
    type: each.type,
    startedAt: new Date(each.timestamp.start * 1000).toISOString(),
    stoppedAt: new Date(each.timestamp.stop * 1000).toISOString(),
  }));
}

/** The server the stanza backs up, as its configuration names it. */
export function backedUpServer(settings: BackupSettings): PostgresNode {
  if (!existsSync(settings.configFile)) throw new Error(`no pgBackRest configuration at ${settings.configFile}`);
  const text = readFileSync(settings.configFile, 'utf8');
  const section = text.split(/^\[/m).find((part) => part.startsWith(`${settings.stanza}]`)) ?? '';
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(section)?.[1]?.trim();
  const dataDir = value('pg1-path');
  if (!dataDir) throw new Error(`stanza ${settings.stanza} has no pg1-path in ${settings.configFile}`);
  return { name: settings.stanza, dataDir, port: Number(value('pg1-port') ?? 5432) };
}

/** pgBackRest's time format: `2026-12-02 10:15:00.123+00`. */
function pgBackRestTime(moment: Date): string {
  return moment.toISOString().replace('T', ' ').replace('Z', '+00');
}

/**
 * The server as it was at `to`: stopped (it may be gone already), its data folder rebuilt by
 * pgBackRest (`--delta` rewrites only what differs) from the last backup before `to` and the WAL
 * archived since, then started; it replays up to `to` and opens for writes on a new timeline.
 * WAL written after `to` is not replayed.
 */
export async function restoreTo(settings: BackupSettings, to: Date): Promise<void> {
  const server = backedUpServer(settings);
  await crashNode(server).catch(() => undefined);
  await pgbackrest(settings, 'restore', ['--delta', '--type=time', `--target=${pgBackRestTime(to)}`, '--target-action=promote']);
  await startNode(server);
}
