import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WalletClient } from '@wallet/sdk';

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
