import { readFileSync } from 'node:fs';
import net from 'node:net';

const LINUX_EPHEMERAL_LOW = 32768;
const PORTS_BELOW_EPHEMERAL = 12_000;
const MOST_WORKERS = 16;
const handedOut = new Set<number>();

/** The lowest port the kernel gives an outgoing connection as its own. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 1024 ? low : LINUX_EPHEMERAL_LOW;
  } catch {
    return LINUX_EPHEMERAL_LOW;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** This process's share of the ports below the ephemeral range: one jest worker never picks another's. */
function portRange(): { low: number; size: number } {
  const high = ephemeralLow();
  const low = Math.max(1025, high - PORTS_BELOW_EPHEMERAL);
  const worker = Number(process.env.JEST_WORKER_ID ?? 0) % MOST_WORKERS;
  const size = Math.floor((high - low) / MOST_WORKERS);
  return { low: low + worker * size, size };
}

/**
 * A port for a server that starts listening later, in another process or after a while. Port 0
 * would give one from the ephemeral range, which an outgoing connection (a pool to PostgreSQL, a
 * fetch) may take as its local port before the server listens, and the server then fails with
 * EADDRINUSE. A port below that range is only ever taken by a listener.
 */
export async function freePort(): Promise<number> {
  const { low, size } = portRange();
  for (let attempt = 0; attempt < size; attempt++) {
    const port = low + Math.floor(Math.random() * size);
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port between ${low} and ${low + size - 1}`);
}
