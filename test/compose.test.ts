import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..');
const COMPOSE_FILE = path.join(ROOT, 'docker-compose.yml');
const CLUSTER_DIR = path.join(ROOT, 'deploy', 'cluster');

const SERVICES = ['gateway', 'identity', 'ledger', 'payments', 'treasury'];
const SERVICE_PORTS: Record<string, string> = { gateway: '8080', identity: '8091', ledger: '8092', payments: '8093', treasury: '8094' };
const RABBIT_NODES = ['rabbitmq-1', 'rabbitmq-2', 'rabbitmq-3'];
/** Each pg_auto_failover formation of the cluster: its monitor and its two data nodes. */
const FORMATIONS = {
  services: { monitor: 'pg-services-monitor', nodes: ['pg-services-1', 'pg-services-2'] },
  ledger: { monitor: 'pg-ledger-monitor', nodes: ['pg-ledger-1', 'pg-ledger-2'] },
  ledgerShard1: { monitor: 'pg-ledger1-monitor', nodes: ['pg-ledger1-1', 'pg-ledger1-2'] },
};
const INSTANCES = SERVICES.flatMap((service) => [`${service}-1`, `${service}-2`]);

/** What these checks read of a compose service, as `docker compose config` prints it or the file declares it. */
interface ComposeService {
  image?: string;
  hostname?: string;
  profiles?: string[];
  command?: string[] | string;
  environment?: Record<string, string | number | null>;
  healthcheck?: { test?: string[] | string; disable?: boolean };
  restart?: string;
  deploy?: { resources?: { limits?: { cpus?: string | number; memory?: string | number } } };
  mem_limit?: string | number;
  cpus?: string | number;
  depends_on?: Record<string, unknown> | string[];
  volumes?: Array<string | { source?: string; target?: string }>;
  ports?: Array<string | { target?: number; published?: string | number; host_ip?: string }>;
}

function composeCli(): string[] | null {
  for (const command of [['docker-compose'], ['docker', 'compose']]) {
    try {
      execFileSync(command[0] as string, [...command.slice(1), 'version'], { stdio: 'ignore', timeout: 10_000 });
      return command;
    } catch {
      // not installed (no engine is needed: `config` only reads the file)
    }
  }
  return null;
}

function compose(cli: string[], args: string[]): string {
  return execFileSync(cli[0] as string, [...cli.slice(1), '-f', COMPOSE_FILE, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
}

/**
 * The services compose runs with `profile` active (none: the default), as its CLI resolves them;
 * without a CLI, as the file declares them (anchors and `<<:` merged), leaving out, as compose
 * does, every service of a profile that is not active.
 */
function composeServices(profile?: string): Record<string, ComposeService> {
  const profileArgs = profile ? ['--profile', profile] : [];
  const cli = composeCli();
  if (cli) {
    compose(cli, [...profileArgs, 'config', '-q']);
    return (JSON.parse(compose(cli, [...profileArgs, 'config', '--format', 'json'])) as { services: Record<string, ComposeService> })
      .services;
  }
  const declared = (parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as { services: Record<string, ComposeService> }).services;
  return Object.fromEntries(
    Object.entries(declared).filter(([, service]) => !service.profiles || (profile !== undefined && service.profiles.includes(profile))),
  );
}

function dependencies(service: ComposeService): string[] {
  const { depends_on: dependsOn } = service;
  return Array.isArray(dependsOn) ? dependsOn : Object.keys(dependsOn ?? {});
}

function commandText(service: ComposeService): string {
  return Array.isArray(service.command) ? service.command.join(' ') : (service.command ?? '');
}

/** What a service mounts: files of the repository by their path in it, named volumes by name. */
function mountSources(service: ComposeService): string[] {
  return (service.volumes ?? []).map((volume) =>
    path.relative(ROOT, path.resolve(ROOT, typeof volume === 'string' ? (volume.split(':')[0] as string) : (volume.source ?? ''))),
  );
}

/** The host ports a service publishes. */
function publishedPorts(service: ComposeService): string[] {
  return (service.ports ?? []).map((port) => (typeof port === 'string' ? (port.split(':').at(-2) as string) : String(port.published)));
}

describe('docker-compose.yml', () => {
  it('is valid and declares the five services, PostgreSQL, RabbitMQ, the trace viewer, Prometheus and Grafana', () => {
    expect(Object.keys(composeServices()).sort()).toEqual([
      'gateway',
      'grafana',
      'identity',
      'jaeger',
      'ledger',
      'payments',
      'postgres',
      'prometheus',
      'rabbitmq',
      'treasury',
    ]);
  });

  describe('the cluster profile, the shape of `npm run start:cluster`', () => {
    const formationServices = Object.values(FORMATIONS).flatMap(({ monitor, nodes }) => [monitor, ...nodes]);
    /** The profile's own services, out of all that `--profile cluster` runs. */
    let cluster: Record<string, ComposeService>;
    beforeAll(() => {
      cluster = Object.fromEntries(
        Object.entries(composeServices('cluster')).filter(([, service]) => service.profiles?.includes('cluster')),
      );
    });

    it('declares three RabbitMQ nodes, two pg_auto_failover formations, two instances of each service and HAProxy', () => {
      expect(Object.keys(cluster).sort()).toEqual([...RABBIT_NODES, ...formationServices, ...INSTANCES, 'haproxy'].sort());
      for (const node of RABBIT_NODES) expect({ node, image: cluster[node]?.image }).toEqual({ node, image: 'rabbitmq:3.13-management' });
      for (const node of formationServices) {
        expect({ node, image: cluster[node]?.image }).toEqual({ node, image: expect.stringMatching(/^citusdata\/pg_auto_failover:/) });
      }
      expect(cluster.haproxy?.image).toMatch(/^haproxy:2\./);
    });

    it('forms one RabbitMQ cluster from the three nodes by classic config peer discovery, with a shared Erlang cookie', () => {
      const config = readFileSync(path.join(CLUSTER_DIR, 'rabbitmq.conf'), 'utf8');
      expect(config).toMatch(/^cluster_formation\.peer_discovery_backend = classic_config$/m);
      expect(config).toMatch(/^default_queue_type = quorum$/m);
      const peers = [...config.matchAll(/^cluster_formation\.classic_config\.nodes\.\d+ = rabbit@(\S+)$/gm)].map((match) => match[1]);
      expect(peers).toEqual(RABBIT_NODES);
      const cookies = RABBIT_NODES.map((node) => cluster[node]?.environment?.RABBITMQ_ERLANG_COOKIE);
      expect(cookies[0]).toBeTruthy();
      expect(new Set(cookies).size).toBe(1);
      // A node is rabbit@<hostname>: its peers reach it by the name the file lists.
      for (const node of RABBIT_NODES) {
        expect({ node, hostname: cluster[node]?.hostname, mounts: mountSources(cluster[node] as ComposeService) }).toEqual({
          node,
          hostname: node,
          mounts: expect.arrayContaining(['deploy/cluster/rabbitmq.conf']),
        });
      }
    });

    it('runs each formation as a monitor and two nodes registered with it, the second after the first', () => {
      for (const { monitor, nodes } of Object.values(FORMATIONS)) {
        expect(commandText(cluster[monitor] as ComposeService)).toMatch(/pg_autoctl create monitor\b/);
        for (const node of nodes) {
          expect({ node, command: commandText(cluster[node] as ComposeService) }).toEqual({
            node,
            command: expect.stringContaining(monitor),
          });
          expect({ node, dependsOn: dependencies(cluster[node] as ComposeService) }).toEqual({
            node,
            dependsOn: expect.arrayContaining([monitor]),
          });
        }
        expect(dependencies(cluster[nodes[1] as string] as ComposeService)).toContain(nodes[0]);
      }
      const script = readFileSync(path.join(CLUSTER_DIR, 'pg-node.sh'), 'utf8');
      expect(script).toMatch(/pg_autoctl create postgres\b/);
      expect(script).toMatch(/--replication-quorum true/);
      expect(script).toMatch(/exec pg_autoctl run/);
    });

    it('points every instance at the three RabbitMQ nodes and at both nodes of each formation, never at the one-node servers', () => {
      for (const instance of INSTANCES) {
        const service = instance.replace(/-\d$/, '');
        const environment = cluster[instance]?.environment ?? {};
        expect({ instance, SERVICE: environment.SERVICE, port: environment[`${service.toUpperCase()}_PORT`] }).toEqual({
          instance,
          SERVICE: service,
          port: SERVICE_PORTS[service],
        });
        const amqpHosts = String(environment.AMQP_URL)
          .split(',')
          .map((url) => new URL(url).hostname);
        expect({ instance, amqpHosts }).toEqual({ instance, amqpHosts: RABBIT_NODES });
        expect({ instance, DATABASE_URL: environment.DATABASE_URL }).toEqual({
          instance,
          DATABASE_URL: expect.stringMatching(/@pg-services-1:5432,pg-services-2:5432\//),
        });
        expect({ instance, LEDGER_DATABASE_URL: environment.LEDGER_DATABASE_URL }).toEqual({
          instance,
          LEDGER_DATABASE_URL: expect.stringMatching(/@pg-ledger-1:5432,pg-ledger-2:5432\/wallet_ledger$/),
        });
        if (service === 'ledger') {
          expect({ instance, LEDGER_SHARDS: environment.LEDGER_SHARDS }).toEqual({
            instance,
            LEDGER_SHARDS: expect.stringMatching(/@pg-ledger1-1:5432,pg-ledger1-2:5432\/wallet_ledger$/),
          });
        }
        const outside = dependencies(cluster[instance] as ComposeService).filter((name) => !(name in cluster) && name !== 'jaeger');
        expect({ instance, outside }).toEqual({ instance, outside: [] });
      }
    });

    it("puts HAProxy in front of every instance on `npm start`'s ports, as scripts/lib/haproxy.ts configures it", () => {
      const haproxy = cluster.haproxy as ComposeService;
      expect(mountSources(haproxy)).toContain('deploy/cluster/haproxy.cfg');
      expect(publishedPorts(haproxy).sort()).toEqual(['8080', '8081', '8082', '8091', '8092', '8093', '8094', '8404']);
      expect(dependencies(haproxy).sort()).toEqual([...INSTANCES].sort());
      const config = readFileSync(path.join(CLUSTER_DIR, 'haproxy.cfg'), 'utf8');
      const listens = new Map(
        config.split(/^(?=listen )/m).flatMap((section) => {
          const name = /^listen (\S+)/.exec(section)?.[1];
          return name ? [[name, section] as const] : [];
        }),
      );
      // As scripts/lib/cluster.ts lays them out: the gateway's three listeners, then each internal service's;
      // a listener without /readyz is checked by a TCP connect.
      const frontends = [
        { name: 'gateway', port: '8080', instance: 'gateway', ready: true },
        { name: 'admin', port: '8081', instance: 'gateway', ready: false },
        { name: 'dashboard', port: '8082', instance: 'gateway', ready: false },
        ...['identity', 'ledger', 'payments', 'treasury'].map((service) => ({
          name: service,
          port: SERVICE_PORTS[service] as string,
          instance: service,
          ready: true,
        })),
      ];
      expect([...listens.keys()].sort()).toEqual(['stats', ...frontends.map(({ name }) => name)].sort());
      expect(listens.get('stats')).toMatch(/^\s+bind :8404$/m);
      for (const { name, port, instance, ready } of frontends) {
        const section = listens.get(name) ?? '';
        expect({
          name,
          bind: /^\s+bind :(\d+)$/m.exec(section)?.[1],
          servers: [...section.matchAll(/^\s+server \S+ (\S+) check$/gm)].map((match) => match[1]),
          ready: section.includes('option httpchk GET /readyz'),
        }).toEqual({ name, bind: port, servers: [`${instance}-1:${port}`, `${instance}-2:${port}`], ready });
      }
    });

    it('gives every container of the profile a healthcheck, a restart policy and resource limits', () => {
      const missing = Object.entries(cluster).flatMap(([name, service]) => {
        const limits = service.deploy?.resources?.limits;
        const gaps = [
          ...(!service.healthcheck?.test || service.healthcheck.disable ? ['healthcheck'] : []),
          ...(!service.restart || service.restart === 'no' ? ['restart'] : []),
          ...(!(limits?.cpus ?? service.cpus) ? ['cpus limit'] : []),
          ...(!(limits?.memory ?? service.mem_limit) ? ['memory limit'] : []),
        ];
        return gaps.length > 0 ? [{ name, gaps }] : [];
      });
      expect(Object.keys(cluster).length).toBeGreaterThan(0);
      expect(missing).toEqual([]);
    });
  });
});
