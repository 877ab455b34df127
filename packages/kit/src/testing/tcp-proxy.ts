import net from 'node:net';

/**
 * How a cut proxy treats a new connection: `refuse` stops listening (the client gets
 * ECONNREFUSED, as from a server that is down); `starting-up` accepts it and answers PostgreSQL's
 * startup message with the FATAL 57P03 "the database system is not yet accepting connections"
 * a restarting server sends, then closes it.
 */
export type CutMode = 'refuse' | 'starting-up';

/**
 * A TCP proxy in front of a real server that a test controls: `cut()` drops every connection
 * through it and turns new ones away until `reopen()`. Pointing a service's URL at the proxy
 * simulates an outage of that server without touching it (other test runs share it).
 */
export interface TcpProxy {
  /** The port the proxy listens on (kept across cuts). */
  readonly port: number;
  /** `url` (postgres://, amqp://, ...) with its host and port replaced by the proxy's. */
  urlThrough(url: string): string;
  /** Connections currently passing through. */
  readonly openConnections: number;
  cut(mode?: CutMode): Promise<void>;
  reopen(): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL's ErrorResponse for a server still starting up (SQLSTATE 57P03). */
function startingUpMessage(): Buffer {
  const fields = [
    ['S', 'FATAL'],
    ['V', 'FATAL'],
    ['C', '57P03'],
    ['M', 'the database system is not yet accepting connections'],
  ]
    .map(([type, value]) => `${type}${value}\0`)
    .join('');
  const body = Buffer.from(`${fields}\0`, 'utf8');
  const header = Buffer.alloc(5);
  header.write('E', 0, 'ascii');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

function listenOn(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function listenAgain(server: net.Server, port: number): Promise<void> {
  // The port was ours a moment ago; the OS may still be letting go of it.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await listenOn(server, port);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Answers a connecting client, at its first bytes, as a server still starting up does. */
function answerStartingUp(client: net.Socket): void {
  client.once('data', () => client.end(startingUpMessage()));
  client.on('error', () => client.destroy());
}

/** Joins `client` to a new connection to `upstream`: bytes both ways, and either end's failure or close ends both. */
function pipeTo(client: net.Socket, upstream: { host: string; port: number }, track: (socket: net.Socket) => void): void {
  const server = net.connect(upstream);
  const both = [client, server];
  for (const socket of both) {
    track(socket);
    socket.setNoDelay(true);
    socket.on('error', () => both.forEach((each) => each.destroy()));
    socket.on('close', () => both.forEach((each) => each.destroy()));
  }
  client.pipe(server);
  server.pipe(client);
}

/** `url` with its host and port replaced by the proxy's. */
function urlThroughPort(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(port);
  return parsed.toString();
}

/** Starts a proxy on a free local port that forwards to `target` (a URL, or host and port). */
export async function startTcpProxy(target: string | { host: string; port: number }, defaultPort = 5432): Promise<TcpProxy> {
  const upstream =
    typeof target === 'string' ? { host: new URL(target).hostname, port: Number(new URL(target).port || defaultPort) } : target;
  /** Every socket the proxy holds: both ends of each connection passed through, and any being turned away. */
  const sockets = new Set<net.Socket>();
  /** The client end of each connection passing through. */
  const passing = new Set<net.Socket>();
  let mode: CutMode | null = null;

  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const onConnection = (client: net.Socket) => {
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    if (mode === 'starting-up') {
      track(client);
      answerStartingUp(client);
      return;
    }
    passing.add(client);
    client.on('close', () => passing.delete(client));
    pipeTo(client, upstream, track);
  };

  const makeServer = () => net.createServer(onConnection);
  let server = makeServer();
  await listenOn(server, 0);
  const { port } = server.address() as net.AddressInfo;

  const closeListener = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };

  return {
    port,
    get openConnections() {
      return passing.size;
    },
    urlThrough: (url) => urlThroughPort(url, port),
    async cut(cutMode = 'refuse') {
      const wasListening = server.listening;
      mode = cutMode;
      dropAll();
      if (cutMode === 'refuse' && wasListening) await closeListener();
      if (cutMode === 'starting-up' && !wasListening) {
        server = makeServer();
        await listenAgain(server, port);
      }
    },
    async reopen() {
      mode = null;
      if (!server.listening) {
        server = makeServer();
        await listenAgain(server, port);
      }
    },
    async close() {
      mode = 'refuse';
      dropAll();
      if (server.listening) await closeListener();
    },
  };
}
