import { readFileSync } from 'node:fs';
import net from 'node:net';
import { freePort } from '../src/testing';

/** The port an outgoing connection gets when the kernel picks it. */
async function outgoingLocalPort(): Promise<number> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const socket = net.connect({ host: '127.0.0.1', port: typeof address === 'object' && address ? address.port : 0 });
  await new Promise((resolve) => socket.once('connect', resolve));
  const port = socket.localPort ?? 0;
  socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('freePort', () => {
  it('gives ports an outgoing connection never takes as its own, each once in a process, each free to listen on', async () => {
    const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    expect(await outgoingLocalPort()).toBeGreaterThanOrEqual(ephemeralLow);

    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeLessThan(ephemeralLow);

    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports[0], '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
