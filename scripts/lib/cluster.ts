import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../packages/kit/src/testing/ports';
import { bundlePath, SERVICE_NAMES, SERVICE_NODE_FLAGS, TELEMETRY_PRELOAD } from '../build';
import { devSecrets } from '../dev-secrets';
import { type Frontend, startHaproxy } from './haproxy';
import { archivingSettings, createStanza, writeBackupConfig } from './backups';
import { type Formation, nodeSocketDir, startFormation } from './pg-auto-failover';
import { type RabbitCluster, startRabbitCluster } from './rabbitmq-cluster';

const ROOT = path.resolve(__dirname, '../..');

/** The addresses clients use: HAProxy's, the same ports `npm start` uses. */
const PUBLIC_PORTS = { gateway: 8080, admin: 8081, dashboard: 8082, identity: 8091, ledger: 8092, payments: 8093, treasury: 8094 };
const STATS_PORT = 8404;

export interface ServiceInstance {
  service: string;
  index: number;
  /** Its listeners: `port` for every service, and the gateway's admin and dashboard listeners. */
  ports: { port: number; admin?: number; dashboard?: number };
  process: ChildProcess;
}

/**
 * The cluster's PostgreSQL formations: one for identity, payments, treasury and the gateway's
 * databases, and one per ledger shard, shard 0 (the tenant directory and the partition map) first.
 */
export interface ClusterPostgres {
  services: Formation;
  ledger: Formation[];
  /** pgBackRest's configuration: one stanza per formation (`services`, `ledger-0`, ...), into one repository. */
  backups: { configFile: string; stanzas: string[] };
}

/** The ledger's shards: two, so that a run crosses shards as a sharded deployment does (docs/scaling.md). */
const LEDGER_SHARD_COUNT = 2;

/** Each ledger shard's database: the same name on its own server, so each server's backends count as the ledger's. */
export const LEDGER_DATABASE = 'wallet_ledger';

export interface RunningCluster {
  rabbit: RabbitCluster;
  postgres: ClusterPostgres;
  instances: ServiceInstance[];
  haproxy: ChildProcess;
  publicPorts: typeof PUBLIC_PORTS;
  statsPort: number;
  /** What runs where, a line each. */
  describe(): string[];
  /** Starts a stopped or killed instance again on its ports. */
  restart(instance: ServiceInstance): Promise<void>;
  stop(): Promise<void>;
}

/** The Debian programs the cluster runs on, and the package of each that is missing. */
export function missingClusterPackages(): string[] {
  const programs: Array<[string, string]> = [
    ['/usr/lib/rabbitmq/bin/rabbitmq-server', 'rabbitmq-server'],
    ['/usr/bin/pg_autoctl', 'postgresql-15-auto-failover'],
    ['/usr/sbin/haproxy', 'haproxy'],
  ];
  return programs.filter(([program]) => !existsSync(program)).map(([, pkg]) => pkg);
}

/**
 * The whole cluster on one machine: three RabbitMQ nodes, three pg_auto_failover formations (a
 * monitor and a primary with its synchronous standby each: one for the services' databases, one
 * for each of the ledger's two shards, so that a shard fails over on its own),
 * `instancesPerService` instances of each service on ports of their own, and HAProxy in front of
 * them on the ports `npm start` uses. The services are the bundles of scripts/build.ts, built
 * beforehand.
 */
export async function startCluster(options: {
  base: string;
  instancesPerService?: number;
  log?: (line: string) => void;
  /** Leaves the logs and data folders after stopping, to look into. */
  keepFolder?: boolean;
  /** Variables for every instance, over the cluster's own. */
  env?: NodeJS.ProcessEnv;
}): Promise<RunningCluster> {
  const log = options.log ?? (() => undefined);
  const perService = options.instancesPerService ?? 2;
  if (existsSync(path.join(options.base, 'haproxy.cfg'))) {
    throw new Error(`${options.base} holds a cluster already: stop it (Ctrl-C) or remove the folder once nothing of it runs`);
  }
  mkdirSync(options.base, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    if (!options.keepFolder) rmSync(options.base, { recursive: true, force: true });
  };
  try {
    log('RabbitMQ: three nodes, one cluster');
    const rabbitNodes = [];
    for (let index = 1; index <= 3; index++)
      rabbitNodes.push({ name: `wallet-${index}`, amqpPort: await freePort(), distributionPort: await freePort() });
    const rabbit = await startRabbitCluster(path.join(options.base, 'rabbitmq'), rabbitNodes);
    stops.push(() => rabbit.stop());

    log(
      `PostgreSQL: pg_auto_failover formations (monitor, primary, synchronous standby) for the services and ${LEDGER_SHARD_COUNT} ledger shards`,
    );
    const postgres = await startFormations(options.base, stops);

    const env = { ...(await instanceEnvironment(rabbit, postgres)), ...options.env };
    log(`Services: ${perService} instances each`);
    const logs = path.join(options.base, 'logs');
    const instances = await startInstances(perService, env, logs, stops);
    const haproxy = startHaproxy(options.base, frontends(instances), STATS_PORT);
    stops.push(async () => void haproxy.kill('SIGTERM'));
    await waitForReady(`http://127.0.0.1:${PUBLIC_PORTS.gateway}/readyz`);
    for (const service of ['identity', 'ledger', 'payments', 'treasury'] as const) {
      await waitForReady(`http://127.0.0.1:${PUBLIC_PORTS[service]}/readyz`);
    }
    return {
      rabbit,
      postgres,
      instances,
      haproxy,
      publicPorts: PUBLIC_PORTS,
      statsPort: STATS_PORT,
      describe: () => describeCluster(rabbit, postgres, instances),
      async restart(instance) {
        instance.process = spawnInstance(instance, env, logs);
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The services' formation, then one per ledger shard; each stopped by `stops`. */
async function startFormations(base: string, stops: Array<() => Promise<void>>): Promise<ClusterPostgres> {
  const configFile = path.join(base, 'pgbackrest.conf');
  const formation = async (name: string): Promise<[string, Formation]> => {
    const started = await startFormation(
      path.join(base, `postgres-${name}`),
      { monitor: await freePort(), nodes: [await freePort(), await freePort()] },
      // Every node archives its WAL: whichever is primary feeds its formation's stanza.
      { settings: archivingSettings({ configFile, stanza: name }) },
    );
    stops.push(() => started.stop());
    return [name, started];
  };
  const services = await formation('services');
  const ledger: Array<[string, Formation]> = [];
  for (let shard = 0; shard < LEDGER_SHARD_COUNT; shard++) ledger.push(await formation(`ledger-${shard}`));
  const stanzas = await enableBackups(base, configFile, [services, ...ledger]);
  return { services: services[1], ledger: ledger.map(([, started]) => started), backups: { configFile, stanzas } };
}

/** One pgBackRest stanza per formation, its two nodes named (pgBackRest backs up the primary), checked to archive. */
async function enableBackups(base: string, configFile: string, formations: ReadonlyArray<[string, Formation]>): Promise<string[]> {
  const stanzas = [];
  for (const [stanza, formation] of formations) {
    const [first] = formation.nodes;
    if (!first) throw new Error(`formation ${stanza} has no node`);
    stanzas.push({ stanza, servers: formation.nodes, socketDir: await nodeSocketDir(first) });
  }
  writeBackupConfig(configFile, { stanzas, repoPath: path.join(base, 'backups', 'repo'), workDir: path.join(base, 'backups', 'work') });
  for (const { stanza } of stanzas) await createStanza({ configFile, stanza });
  return stanzas.map(({ stanza }) => stanza);
}

/** Shard 0's URL, where the ledger keeps its directory, and those of the shards beside it, as LEDGER_SHARDS takes them. */
function ledgerDatabases(postgres: ClusterPostgres): { LEDGER_DATABASE_URL: string; LEDGER_SHARDS: string } {
  const [home, ...others] = postgres.ledger.map((formation) => formation.url(LEDGER_DATABASE));
  if (home === undefined) throw new Error('the cluster has no ledger shard');
  return { LEDGER_DATABASE_URL: home, LEDGER_SHARDS: others.join(' ') };
}

async function instanceEnvironment(rabbit: RabbitCluster, postgres: ClusterPostgres): Promise<NodeJS.ProcessEnv> {
  const { secrets } = devSecrets();
  return {
    NODE_ENV: 'development',
    ...process.env,
    ...secrets,
    DATABASE_URL: postgres.services.url('postgres'),
    ...ledgerDatabases(postgres),
    AMQP_URL: rabbit.amqpUrl,
    // Services reach each other through HAProxy, as clients do.
    IDENTITY_URL: `http://127.0.0.1:${PUBLIC_PORTS.identity}`,
    LEDGER_URL: `http://127.0.0.1:${PUBLIC_PORTS.ledger}`,
    PAYMENTS_URL: `http://127.0.0.1:${PUBLIC_PORTS.payments}`,
    TREASURY_URL: `http://127.0.0.1:${PUBLIC_PORTS.treasury}`,
    GATEWAY_INTERNAL_URL: `http://127.0.0.1:${PUBLIC_PORTS.admin}`,
    DASHBOARD_URL: `http://127.0.0.1:${PUBLIC_PORTS.dashboard}`,
  };
}

/** `perService` instances of each service, each stopped (SIGTERM, whichever process it runs as by then) by `stops`. */
async function startInstances(
  perService: number,
  env: NodeJS.ProcessEnv,
  logs: string,
  stops: Array<() => Promise<void>>,
): Promise<ServiceInstance[]> {
  const instances: ServiceInstance[] = [];
  for (const service of SERVICE_NAMES) {
    for (let index = 1; index <= perService; index++) {
      const instance = await startInstance(service, index, env, logs);
      instances.push(instance);
      stops.push(async () => void instance.process.kill('SIGTERM'));
    }
  }
  return instances;
}

async function startInstance(service: string, index: number, env: NodeJS.ProcessEnv, logs: string): Promise<ServiceInstance> {
  mkdirSync(logs, { recursive: true });
  const ports: ServiceInstance['ports'] = { port: await freePort() };
  if (service === 'gateway') {
    ports.admin = await freePort();
    ports.dashboard = await freePort();
  }
  const instance = { service, index, ports } as ServiceInstance;
  instance.process = spawnInstance(instance, env, logs);
  return instance;
}

/** The instance's bundle as a process on its own ports, its output appended to its log. */
function spawnInstance(instance: Omit<ServiceInstance, 'process'>, env: NodeJS.ProcessEnv, logs: string): ChildProcess {
  const { service, ports } = instance;
  const own: NodeJS.ProcessEnv = { [`${service.toUpperCase()}_PORT`]: String(ports.port), OTEL_SERVICE_NAME: service };
  if (ports.admin !== undefined) own.ADMIN_PORT = String(ports.admin);
  if (ports.dashboard !== undefined) own.DASHBOARD_PORT = String(ports.dashboard);
  const out = openSync(path.join(logs, `${service}-${instance.index}.log`), 'a');
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, '--require', TELEMETRY_PRELOAD, bundlePath(service)], {
    cwd: ROOT,
    env: { ...env, ...own },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  return child;
}

function frontends(instances: readonly ServiceInstance[]): Frontend[] {
  const portsOf = (service: string, listener: 'port' | 'admin' | 'dashboard'): number[] =>
    instances.filter((each) => each.service === service).map((each) => each.ports[listener] as number);
  return [
    { name: 'gateway', port: PUBLIC_PORTS.gateway, servers: portsOf('gateway', 'port'), readyPath: '/readyz' },
    { name: 'admin', port: PUBLIC_PORTS.admin, servers: portsOf('gateway', 'admin') },
    { name: 'dashboard', port: PUBLIC_PORTS.dashboard, servers: portsOf('gateway', 'dashboard') },
    ...(['identity', 'ledger', 'payments', 'treasury'] as const).map((service) => ({
      name: service,
      port: PUBLIC_PORTS[service],
      servers: portsOf(service, 'port'),
      readyPath: '/readyz',
    })),
  ];
}

async function waitForReady(url: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer ready within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function describeFormation(label: string, formation: Formation): string {
  return `  PostgreSQL ${label.padEnd(16)} monitor :${formation.monitorPort}, nodes ${formation.nodes.map((node) => `:${node.port}`).join(', ')}`;
}

function describeCluster(rabbit: RabbitCluster, postgres: ClusterPostgres, instances: readonly ServiceInstance[]): string[] {
  const lines = [
    `  API        http://127.0.0.1:${PUBLIC_PORTS.gateway} (HAProxy; stats http://127.0.0.1:${STATS_PORT})`,
    `  Admin      http://127.0.0.1:${PUBLIC_PORTS.admin}`,
    `  Dashboard  http://127.0.0.1:${PUBLIC_PORTS.dashboard}`,
    `  RabbitMQ   ${rabbit.nodes.map((node) => `${node.name}@localhost :${node.amqpPort}`).join(', ')}`,
    describeFormation('services:', postgres.services),
    ...postgres.ledger.map((formation, shard) => describeFormation(`ledger shard ${shard}:`, formation)),
    `  Backups    PGBACKREST_CONFIG=${postgres.backups.configFile} PGBACKREST_STANZA=<${postgres.backups.stanzas.join('|')}> npm run ops -- backup`,
  ];
  for (const service of SERVICE_NAMES) {
    const own = instances.filter((each) => each.service === service);
    lines.push(`  ${service.padEnd(10)} ${own.map((each) => `#${each.index} :${each.ports.port} (pid ${each.process.pid})`).join(', ')}`);
  }
  return lines;
}
