import { execFile } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { asServiceUser, SERVICE_USER_CWD, serviceUser } from './service-user';

/**
 * PostgreSQL servers side by side on one machine, from Debian's postgresql package: a primary and
 * a streaming standby made from it with pg_basebackup, each with its own port and data folder.
 * Small and disposable (trust on 127.0.0.1, fsync off): for tests of what a failover does to the
 * services, not for data.
 */

export interface PostgresNode {
  name: string;
  port: number;
  dataDir: string;
}

export interface PostgresPair {
  primary: PostgresNode;
  standby: PostgresNode;
  /** libpq's multi-host URL of both, the standby first, for database `name`. */
  url(name: string): string;
  /** Stops a node at once, as a crash would (`pg_ctl stop -m immediate`). */
  crash(node: PostgresNode): Promise<void>;
  /** Promotes the standby to primary (`pg_ctl promote`), once it has left recovery. */
  promote(node: PostgresNode): Promise<void>;
  /** Stops both and removes their folders. */
  stop(): Promise<void>;
}

const run = promisify(execFile);

/** A program of Debian's newest installed PostgreSQL (`pg_ctl`, `initdb`). */
export function postgresBinary(name: string): string {
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error("Debian's postgresql package is missing: no /usr/lib/postgresql/<version>");
  return path.join('/usr/lib/postgresql', versions[0] as string, 'bin', name);
}

/** Runs a PostgreSQL program (`pg_ctl`, `initdb`; `/`-paths as they are) as the postgres user where this is root. */
export async function asPostgres(command: string, args: string[]): Promise<string> {
  const [file, full] = asServiceUser('postgres', command.includes('/') ? command : postgresBinary(command), args);
  return (await run(file, full, { cwd: SERVICE_USER_CWD, timeout: 120_000 })).stdout;
}

/** Settings appended to the node's postgresql.conf: the last one of a name wins, so a copy's own port follows its primary's. */
function configure(node: PostgresNode, base: string, settings: Record<string, string>): void {
  const all = {
    port: String(node.port),
    unix_socket_directories: `'${base}'`,
    listen_addresses: "'127.0.0.1'",
    fsync: 'off',
    shared_buffers: '16MB',
    ...settings,
  };
  appendFileSync(
    path.join(node.dataDir, 'postgresql.conf'),
    `\n${Object.entries(all)
      .map(([name, value]) => `${name} = ${value}`)
      .join('\n')}\n`,
  );
}

/** Starts a node with its own configuration (pg_ctl start -w: until it accepts connections). */
export async function startNode(node: PostgresNode): Promise<void> {
  await asPostgres('pg_ctl', ['-D', node.dataDir, '-l', `${node.dataDir}.log`, '-w', 'start']);
}

/** Stops a node at once, as a crash would (`pg_ctl stop -m immediate`). */
export async function crashNode(node: PostgresNode): Promise<void> {
  await asPostgres('pg_ctl', ['-D', node.dataDir, '-m', 'immediate', 'stop']);
}

/** The folder the nodes live in, reachable (and, as root, owned) by the postgres user. */
export function prepareBase(base: string): void {
  mkdirSync(base, { recursive: true });
  chmodSync(base, 0o755);
  const owner = serviceUser('postgres');
  if (owner) chownSync(base, owner.uid, owner.gid);
}

/** A fresh primary (initdb) on `port` under `base`, started, with `settings` in its postgresql.conf. */
export async function startPostgresNode(
  base: string,
  name: string,
  port: number,
  settings: Record<string, string> = {},
): Promise<PostgresNode> {
  prepareBase(base);
  const node = { name, port, dataDir: path.join(base, name) };
  await asPostgres('initdb', ['-D', node.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync']);
  configure(node, base, settings);
  await startNode(node);
  return node;
}

/** A primary on `ports.primary` and its streaming standby on `ports.standby`, under `base`. */
export async function startPostgresPair(base: string, ports: { primary: number; standby: number }): Promise<PostgresPair> {
  const primary = await startPostgresNode(base, 'primary', ports.primary);
  const standby = { name: 'standby', port: ports.standby, dataDir: path.join(base, 'standby') };
  const pair: PostgresPair = {
    primary,
    standby,
    url: (name) => `postgres://postgres@127.0.0.1:${standby.port},127.0.0.1:${primary.port}/${name}`,
    crash: crashNode,
    promote: async (node) => void (await asPostgres('pg_ctl', ['-D', node.dataDir, '-w', 'promote'])),
    async stop() {
      for (const node of [primary, standby])
        await asPostgres('pg_ctl', ['-D', node.dataDir, '-m', 'immediate', 'stop']).catch(() => undefined);
      rmSync(base, { recursive: true, force: true });
    },
  };
  try {
    // -R writes the standby's primary_conninfo and standby.signal.
    await asPostgres('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
      '-D',
      standby.dataDir,
      '-R',
      '-X',
      'stream',
    ]);
    configure(standby, base, {});
    await startNode(standby);
  } catch (error) {
    await pair.stop();
    throw error;
  }
  return pair;
}
