import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { asServiceUser, SERVICE_USER_CWD, serviceUser } from './service-user';

/**
 * RabbitMQ nodes side by side on one machine, from Debian's rabbitmq-server package, formed into
 * one cluster the way RabbitMQ intends: each node's rabbitmq.conf lists its peers (classic config
 * peer discovery), and they join at first boot. Each node has its own name, AMQP port,
 * distribution port and data folder; across machines only the host names change.
 */

export interface RabbitNodeSpec {
  /** The Erlang node name, `<name>@localhost`. */
  name: string;
  amqpPort: number;
  distributionPort: number;
}

export interface RabbitCluster {
  nodes: readonly RabbitNodeSpec[];
  /** `AMQP_URL` for services: every node's address, comma-separated. */
  amqpUrl: string;
  /** One node's AMQP URL. */
  urlOf(node: RabbitNodeSpec): string;
  /** Stops one node as its service manager would (SIGTERM: the Erlang VM shuts down cleanly); the others carry on. */
  stopNode(node: RabbitNodeSpec): Promise<void>;
  /** Starts a stopped node again; it rejoins the cluster and its queue members catch up. */
  startNode(node: RabbitNodeSpec): Promise<void>;
  /** The cluster's running nodes, as one node sees them. */
  runningNodes(from?: RabbitNodeSpec): Promise<string[]>;
  /** The default vhost's queues as one node lists them: type, durability and, for quorum queues, the nodes holding a member. */
  queues(from?: RabbitNodeSpec): Promise<ClusterQueue[]>;
  /** Stops every node and removes their data folders. */
  stop(): Promise<void>;
}

export interface ClusterQueue {
  name: string;
  type: string;
  durable: boolean;
  members: string[];
}

const SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';
const CTL = '/usr/lib/rabbitmq/bin/rabbitmqctl';
const BOOT_TIMEOUT_MS = 90_000;
const run = promisify(execFile);

const brokerUser = (): { uid: number; gid: number } | undefined => serviceUser('rabbitmq');
const asBrokerUser = (command: string, args: string[]): [string, string[]] => asServiceUser('rabbitmq', command, args);

function nodeFolder(base: string, node: RabbitNodeSpec): string {
  return path.join(base, node.name);
}

function nodeEnvironment(base: string, node: RabbitNodeSpec): Record<string, string> {
  const folder = nodeFolder(base, node);
  return {
    RABBITMQ_NODENAME: `${node.name}@localhost`,
    RABBITMQ_NODE_PORT: String(node.amqpPort),
    RABBITMQ_DIST_PORT: String(node.distributionPort),
    RABBITMQ_MNESIA_BASE: path.join(folder, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(folder, 'log'),
    RABBITMQ_CONFIG_FILE: path.join(folder, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(folder, 'enabled_plugins'),
    RABBITMQ_PID_FILE: path.join(folder, 'rabbitmq.pid'),
    // Nodes sharing one machine's cores: Erlang's schedulers spin while idle unless told not to.
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '+sbwt none +sbwtdcpu none +sbwtdio none',
  };
}

function writeNodeFiles(base: string, node: RabbitNodeSpec, peers: readonly RabbitNodeSpec[]): void {
  const folder = nodeFolder(base, node);
  for (const sub of ['mnesia', 'log']) mkdirSync(path.join(folder, sub), { recursive: true });
  const config = [
    `listeners.tcp.default = 127.0.0.1:${node.amqpPort}`,
    'cluster_formation.peer_discovery_backend = classic_config',
    ...peers.map((peer, index) => `cluster_formation.classic_config.nodes.${index + 1} = ${peer.name}@localhost`),
    // Nodes started together: the first to boot forms the cluster, the others join it at once.
    'cluster_formation.randomized_startup_delay_range.min = 0',
    'cluster_formation.randomized_startup_delay_range.max = 1',
    '',
  ].join('\n');
  writeFileSync(path.join(folder, 'rabbitmq.conf'), config);
  writeFileSync(path.join(folder, 'enabled_plugins'), '[].\n');
  const owner = brokerUser();
  if (owner)
    for (const entry of [folder, ...['mnesia', 'log', 'rabbitmq.conf', 'enabled_plugins'].map((sub) => path.join(folder, sub))])
      chownSync(entry, owner.uid, owner.gid);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function untilListening(node: RabbitNodeSpec, process: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + BOOT_TIMEOUT_MS;
  while (!(await portOpen(node.amqpPort))) {
    if (process.exitCode !== null)
      throw new Error(`RabbitMQ node ${node.name} exited while booting:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    if (Date.now() > deadline)
      throw new Error(`RabbitMQ node ${node.name} did not listen on ${node.amqpPort} within ${BOOT_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** rabbitmqctl's JSON output, or an error that shows what it printed instead. */
function parsed<Value>(output: string): Value {
  try {
    return JSON.parse(output) as Value;
  } catch {
    throw new Error(`rabbitmqctl printed no JSON:\n${output.slice(0, 2000)}`);
  }
}

function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the node's Erlang VM (its pid file), then waits until it has exited. */
async function stopNode(base: string, node: RabbitNodeSpec): Promise<void> {
  const pidFile = nodeEnvironment(base, node).RABBITMQ_PID_FILE as string;
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : NaN;
  if (!Number.isInteger(pid) || !signal(pid, 'SIGTERM')) return;
  const deadline = Date.now() + 60_000;
  while (signal(pid, 0)) {
    if (Date.now() > deadline) throw new Error(`RabbitMQ node ${node.name} (pid ${pid}) did not stop within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts `nodes` as one cluster with its data under `base`, and resolves once every node accepts AMQP connections. */
export async function startRabbitCluster(base: string, nodes: readonly RabbitNodeSpec[]): Promise<RabbitCluster> {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: install Debian's rabbitmq-server package`);
  const processes = new Map<string, ChildProcess>();
  const boot = async (node: RabbitNodeSpec): Promise<void> => {
    const logFile = path.join(nodeFolder(base, node), 'console.log');
    const output = openSync(logFile, 'a');
    const [command, args] = asBrokerUser(SERVER, []);
    const child = spawn(command, args, {
      cwd: SERVICE_USER_CWD,
      env: { ...process.env, ...nodeEnvironment(base, node) },
      stdio: ['ignore', output, output],
      detached: true,
    });
    child.unref();
    processes.set(node.name, child);
    await untilListening(node, child, logFile);
  };
  const ctl = async (node: RabbitNodeSpec, args: string[]): Promise<string> => {
    const [command, full] = asBrokerUser(CTL, ['-n', `${node.name}@localhost`, ...args]);
    return (await run(command, full, { cwd: SERVICE_USER_CWD, env: { ...process.env, ...nodeEnvironment(base, node) }, timeout: 60_000 }))
      .stdout;
  };
  const kill = (node: RabbitNodeSpec): void => {
    const child = processes.get(node.name);
    if (child?.pid && child.exitCode === null) signal(-child.pid, 'SIGKILL');
  };
  mkdirSync(base, { recursive: true });
  // The nodes' user must reach its folders (a mkdtemp folder is the caller's alone).
  chmodSync(base, 0o755);
  for (const node of nodes) writeNodeFiles(base, node, nodes);
  try {
    await Promise.all(nodes.map(boot));
  } catch (error) {
    nodes.forEach(kill);
    throw error;
  }
  const urlOf = (node: RabbitNodeSpec): string => `amqp://guest:guest@127.0.0.1:${node.amqpPort}`;
  const cluster: RabbitCluster = {
    nodes,
    amqpUrl: nodes.map(urlOf).join(','),
    urlOf,
    stopNode: (node) => stopNode(base, node),
    startNode: boot,
    async runningNodes(from = nodes[0] as RabbitNodeSpec) {
      const status = parsed<{ running_nodes?: string[] }>(await ctl(from, ['cluster_status', '--formatter', 'json']));
      return status.running_nodes ?? [];
    },
    async queues(from = nodes[0] as RabbitNodeSpec) {
      const listed = parsed<Array<Partial<ClusterQueue> & { name: string }>>(
        await ctl(from, ['list_queues', '--quiet', '--formatter', 'json', 'name', 'type', 'durable', 'members']),
      );
      return listed.map((queue) => ({
        name: queue.name,
        type: String(queue.type ?? ''),
        durable: queue.durable === true,
        members: Array.isArray(queue.members) ? queue.members.map(String) : [],
      }));
    },
    async stop() {
      await Promise.all(nodes.map((node) => stopNode(base, node).catch(() => kill(node))));
      rmSync(base, { recursive: true, force: true });
    },
  };
  return cluster;
}
