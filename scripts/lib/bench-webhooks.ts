import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { WalletClient } from '@wallet/sdk';
import { cpuPerTransfer, type MeasuredSystem, type ProcessCounters, processCounters } from './transfer-load';

/** A receiver that takes every delivery with 204 and counts it: what a tenant's endpoint costs the platform, not the receiver. */
export interface BenchReceiver {
  url: string;
  received(): number;
  close(): Promise<void>;
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The tenant's one webhook endpoint, subscribed to every event type, in the bench's environment (test). */
export async function subscribeEveryEvent(options: { baseUrl: string; systemKey: string; tenantId: string; url: string }): Promise<void> {
  const platform = new WalletClient({ baseUrl: options.baseUrl, auth: { type: 'system', systemKey: options.systemKey } });
  const key = await platform.apiKeys.createForTenant(options.tenantId, {
    name: 'webhooks',
    scopes: ['webhooks:manage'],
    environment: 'test',
  });
  const developer = new WalletClient({ baseUrl: options.baseUrl, auth: { type: 'secret', apiKey: key.key as string } });
  await developer.webhookEndpoints.create({ url: options.url, eventTypes: ['*'] });
}

/** Waits until identity's database has no delivery due, or `maxMs` passed; one connection for the whole wait. */
async function drained(databaseUrl: string, maxMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = performance.now();
    const pending = async () =>
      Number((await client.query<{ count: string }>("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")).rows[0]?.count);
    while ((await pending()) > 0 && performance.now() - started < maxMs) await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    await client.end();
  }
}

const DRAIN_MAX_MS = 300_000;

/**
 * What delivering the run's events took: how long after the workloads the last was delivered
 * (delivery runs behind the money path, at a lower CPU priority), and the CPU per delivery of the
 * `webhooks` process and of identity's database over the whole run, catching up included.
 */
export async function webhookFigures(options: {
  identityDatabaseUrl: string;
  system: MeasuredSystem;
  before: ProcessCounters;
  receiver: BenchReceiver;
}): Promise<string[]> {
  const ended = performance.now();
  await drained(options.identityDatabaseUrl, DRAIN_MAX_MS);
  const caughtUpSeconds = (performance.now() - ended) / 1000;
  const received = options.receiver.received();
  const shares = cpuPerTransfer(options.before, processCounters(options.system), received);
  const share = (label: string) => (shares.find((each) => each.process === label)?.msPerTransfer ?? 0).toFixed(2);
  return [
    `  webhook deliveries: ${received} received, the last ${caughtUpSeconds.toFixed(1)} s after the workloads ended`,
    `  CPU per delivery over the whole run (ms): webhooks ${share('webhooks')}, pg:identity ${share('pg:identity')}, identity ${share('identity')}`,
  ];
}
