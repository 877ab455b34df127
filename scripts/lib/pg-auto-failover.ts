import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { asPostgres, postgresBinary, prepareBase } from './postgres-nodes';
import { asServiceUser, SERVICE_USER_CWD } from './service-user';

/**
 * A pg_auto_failover formation on one machine, from Debian's postgresql-15-auto-failover package:
 * a monitor and data nodes, each run by its own `pg_autoctl` keeper with its own port and folder.
 * The monitor decides the primary and promotes a standby when the primary is lost; with two data
 * nodes the primary commits synchronously to the other (replication quorum), so a commit it
 * acknowledged is on the standby it fails over to. Trust on 127.0.0.1, no TLS: for tests and the
 * one-machine cluster, not for data.
 */

export interface FormationNode {
  name: string;
  port: number;
  dataDir: string;
}

export interface Formation {
  monitorPort: number;
  nodes: FormationNode[];
  /** libpq's multi-host URL of the data nodes for database `name`: services resolve the primary among them. */
  url(name: string): string;
  /** The node the monitor has as primary (or as primary without its standby), if any. */
  primary(): Promise<FormationNode | undefined>;
  /** Until the monitor has a primary other than `lost`, with a synchronous standby when `withStandby`. */
  waitForPrimary(options?: { not?: FormationNode; withStandby?: boolean; timeoutMs?: number }): Promise<FormationNode>;
  /** The node's machine dies: its keeper and its PostgreSQL are killed with SIGKILL. */
  kill(node: FormationNode): void;
  /** Its keeper started again: PostgreSQL comes back and rejoins as the standby. */
  restart(node: FormationNode): void;
  stop(): Promise<void>;
}

interface NodeState {
  nodename: string;
  nodeport: number;
  reportedstate: string;
  goalstate: string;
}

/**
 * How soon the monitor gives up on a node that stops answering. Its defaults (checks every 5 s,
 * unhealthy after 20 s without a report) suit machines on a network; on one machine a second
 * or two tells the same.
 */
const FAST_HEALTH_CHECKS = {
  'pgautofailover.health_check_period': '1000',
  'pgautofailover.health_check_timeout': '1000',
  'pgautofailover.health_check_max_retries': '1',
  'pgautofailover.health_check_retry_delay': '500',
  'pgautofailover.node_considered_unhealthy_timeout': '3000',
};

/** The keepers of one formation: each `pg_autoctl` in its own process group, as the postgres user, its log beside it. */
class Keepers {
  readonly processes = new Map<string, ChildProcess>();
  private readonly env: string[];

  constructor(private readonly base: string) {
    this.env = [`XDG_CONFIG_HOME=${base}/config`, `XDG_DATA_HOME=${base}/data`, `XDG_RUNTIME_DIR=${base}/run`];
  }

  /** Runs `pg_autoctl args` to its end (`stop`, `show`). */
  run(args: string[]): Promise<string> {
    return asPostgres('/usr/bin/env', [...this.env, 'pg_autoctl', ...args]);
  }

  /** Starts a long-running `pg_autoctl args` (`create … --run`, `run`) under `name`. */
  keep(name: string, args: string[]): void {
    const log = openSync(path.join(this.base, `${name}.log`), 'a');
    const [file, full] = asServiceUser('postgres', 'env', [...this.env, 'pg_autoctl', ...args]);
    // Its own process group, so that killing it takes the keeper and the PostgreSQL it runs.
    const keeper = spawn(file, full, { cwd: SERVICE_USER_CWD, detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    keeper.unref();
    this.processes.set(name, keeper);
  }

  kill(name: string): void {
    const keeper = this.processes.get(name);
    if (!keeper?.pid) return;
    try {
      process.kill(-keeper.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

async function monitorQuery<Row>(port: number, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/pg_auto_failover` });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Row[];
  } finally {
    await client.end();
  }
}

function nodeStates(monitorPort: number): Promise<NodeState[]> {
  return monitorQuery<NodeState>(
    monitorPort,
    'SELECT nodename, nodeport, reportedstate::text, goalstate::text FROM pgautofailover.node ORDER BY nodeid',
  );
}

/** Options every `pg_autoctl create` of the formation takes. */
function commonCreateArgs(dataDir: string, port: number): string[] {
  return [
    '--pgdata',
    dataDir,
    '--pgport',
    String(port),
    '--pgctl',
    postgresBinary('pg_ctl'),
    '--hostname',
    '127.0.0.1',
    '--auth',
    'trust',
    '--no-ssl',
  ];
}

/** The formation's primary: with `withStandby`, once a standby is `secondary` beside it. */
async function waitForPrimary(
  monitorPort: number,
  nodes: readonly FormationNode[],
  options: { not?: FormationNode; withStandby?: boolean; timeoutMs?: number },
): Promise<FormationNode> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  // `single` is a primary with no standby registered yet; `wait_primary` one whose standby is gone.
  const wanted = options.withStandby ? ['primary'] : ['single', 'primary', 'wait_primary'];
  for (;;) {
    const found = await nodeStates(monitorPort).catch(() => []);
    const primary = found.find(
      (state) => wanted.includes(state.reportedstate) && state.reportedstate === state.goalstate && state.nodeport !== options.not?.port,
    );
    const standbyReady =
      !options.withStandby || found.some((state) => state.reportedstate === 'secondary' && state.goalstate === 'secondary');
    const node = nodes.find((each) => each.port === primary?.nodeport);
    if (node && standbyReady) return node;
    if (Date.now() > deadline) throw new Error(`no primary in the formation: ${JSON.stringify(found)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function formationOf(base: string, monitorPort: number, nodes: FormationNode[], keepers: Keepers): Formation {
  const monitorDir = path.join(base, 'monitor');
  return {
    monitorPort,
    nodes,
    url: (name) => `postgres://postgres@${nodes.map((node) => `127.0.0.1:${node.port}`).join(',')}/${name}`,
    async primary() {
      const primary = (await nodeStates(monitorPort)).find((state) => ['single', 'primary', 'wait_primary'].includes(state.reportedstate));
      return nodes.find((node) => node.port === primary?.nodeport);
    },
    waitForPrimary: (options = {}) => waitForPrimary(monitorPort, nodes, options),
    kill(node) {
      keepers.kill(node.name);
      // The postmaster daemonizes out of the keeper's group: its pid file names it.
      const postmaster = Number(readFileSync(path.join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (postmaster > 0) process.kill(postmaster, 'SIGKILL');
    },
    restart(node) {
      keepers.keep(node.name, ['run', '--pgdata', node.dataDir]);
    },
    async stop() {
      // Each keeper stops its PostgreSQL (a killed one has nothing left to stop); then whatever is left goes.
      for (const dir of [...nodes.map((node) => node.dataDir), monitorDir])
        await keepers.run(['stop', '--pgdata', dir, '--fast']).catch(() => undefined);
      for (const name of keepers.processes.keys()) keepers.kill(name);
      // Without waiting: a killed postmaster may linger as a zombie where nothing reaps orphans, and pg_ctl would wait on it.
      for (const dir of [monitorDir, ...nodes.map((node) => node.dataDir)]) {
        await asPostgres('pg_ctl', ['-D', dir, '-m', 'immediate', '-W', 'stop']).catch(() => undefined);
      }
      rmSync(base, { recursive: true, force: true });
    },
  };
}

async function nodeQuery<Row>(node: FormationNode, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${node.port}/postgres` });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** Where the node's PostgreSQL listens for local connections: pgBackRest connects there. */
export async function nodeSocketDir(node: FormationNode): Promise<string> {
  const [row] = await nodeQuery<{ unix_socket_directories: string }>(node, 'SHOW unix_socket_directories');
  const dir = row?.unix_socket_directories.split(',')[0]?.trim();
  if (!dir) throw new Error(`node ${node.name} listens on no unix socket`);
  return dir;
}

/**
 * Server settings (WAL archiving) given to the first node while it is alone: ALTER SYSTEM, then its
 * keeper started again so that PostgreSQL restarts with them. The standby made from it next copies
 * postgresql.auto.conf with the rest, so whichever node is primary has them.
 */
async function configureFirstNode(formation: Formation, node: FormationNode, settings: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(settings)) await nodeQuery(node, `ALTER SYSTEM SET ${name} = ${value}`);
  formation.kill(node);
  formation.restart(node);
  await formation.waitForPrimary();
  const [name, value] = Object.entries(settings)[0] ?? [];
  if (name === undefined) return;
  await waitUntil(async () => {
    const [row] = await nodeQuery<Record<string, string>>(node, `SHOW ${name}`);
    return row?.[name] === String(value).replace(/^'|'$/g, '');
  }, `${name} on ${node.name}`);
}

/**
 * A monitor and its data nodes, one at a time; `settings` (values as ALTER SYSTEM takes them) go to
 * every data node.
 */
export async function startFormation(
  base: string,
  ports: { monitor: number; nodes: number[] },
  options: { settings?: Record<string, string> } = {},
): Promise<Formation> {
  prepareBase(base);
  const keepers = new Keepers(base);
  const nodes: FormationNode[] = ports.nodes.map((port, index) => ({
    name: `node${index + 1}`,
    port,
    dataDir: path.join(base, `node${index + 1}`),
  }));
  const formation = formationOf(base, ports.monitor, nodes, keepers);
  try {
    keepers.keep('monitor', ['create', 'monitor', ...commonCreateArgs(path.join(base, 'monitor'), ports.monitor), '--run']);
    await waitUntil(() => nodeStates(ports.monitor).then(() => true), 'the monitor');
    for (const [name, value] of Object.entries(FAST_HEALTH_CHECKS))
      await monitorQuery(ports.monitor, `ALTER SYSTEM SET ${name} = ${value}`);
    await monitorQuery(ports.monitor, 'SELECT pg_reload_conf()');
    const monitorUrl = `postgres://autoctl_node@127.0.0.1:${ports.monitor}/pg_auto_failover`;
    // One at a time: the first becomes the primary, the next its standby (pg_basebackup from it).
    for (const node of nodes) {
      keepers.keep(node.name, [
        'create',
        'postgres',
        ...commonCreateArgs(node.dataDir, node.port),
        '--name',
        node.name,
        '--monitor',
        monitorUrl,
        '--run',
      ]);
      await formation.waitForPrimary({ withStandby: node !== nodes[0] });
      if (node === nodes[0] && options.settings) await configureFirstNode(formation, node, options.settings);
    }
  } catch (error) {
    await formation.stop();
    throw error;
  }
  return formation;
}

async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
