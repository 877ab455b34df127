/**
 * Gateway benchmark: the cost of signed requests. The whole system runs as the README starts
 * it (scripts/start.ts, each service its own process); this process drives the same tenant
 * read (GET /v1/ledger/accounts) through the gateway with the SDK, alternately with a secret
 * key and with an hmac key, in the same run, and prints requests/s and latency for each and
 * their ratio. Rate limits are raised out of the way: this measures authentication.
 *
 *   npm run bench:gateway          BENCH_REQUESTS=4000 BENCH_CONCURRENCY=32 BENCH_ROUNDS=2
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { DEFAULT_AMQP_URL, DEFAULT_DATABASE_URL } from '@wallet/kit';
import { WalletClient } from '@wallet/sdk';
import { dropSystem, percentile, startSystem } from './lib/system';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

const serverUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const amqpServerUrl = process.env.AMQP_URL ?? DEFAULT_AMQP_URL;
const runId = `benchgw${Date.now().toString(36)}`;
const SYSTEM_KEY = `sys_bench_${randomUUID()}`;

interface Figures {
  label: string;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

async function drive(label: string, client: WalletClient): Promise<Figures> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next += 1;
        const sent = performance.now();
        await client.ledger.accounts({ limit: 10 });
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { label, perSecond: REQUESTS / seconds, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99) };
}

async function main(): Promise<void> {
  const system = await startSystem({
    serverUrl,
    amqpServerUrl,
    runId,
    systemKey: SYSTEM_KEY,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
  });
  const { baseUrl } = system;
  const results: Figures[] = [];
  try {
    const platform = new WalletClient({ baseUrl, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    const slug = `bench-${runId}`;
    const tenant = await platform.system.tenants.create({
      name: 'Bench',
      slug,
      config: { defaultCurrency: 'KES', allowedCurrencies: ['KES'], maxTransactionAmount: '1000000' },
    });
    const secretKey = await platform.apiKeys.createForTenant(tenant.id, {
      name: 'bench secret',
      scopes: ['ledger:read'],
      environment: 'test',
    });
    const hmacKey = await platform.apiKeys.createForTenant(tenant.id, {
      name: 'bench hmac',
      authMode: 'hmac',
      scopes: ['ledger:read'],
      environment: 'test',
    });
    // Response validation off: the figures are the gateway's, not the client's schema checks.
    const secret = new WalletClient({
      baseUrl,
      auth: { type: 'secret', apiKey: secretKey.key as string },
      validateResponses: false,
      maxRetries: 0,
    });
    const signed = new WalletClient({
      baseUrl,
      auth: { type: 'hmac', keyId: hmacKey.id, signingSecret: hmacKey.signingSecret as string },
      validateResponses: false,
      maxRetries: 0,
    });

    console.log('Gateway benchmark: secret keys vs signed requests');
    console.log(
      `  machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
    );
    console.log(
      `  the five services as processes (scripts/start.ts), PostgreSQL and RabbitMQ on the same machine, this driver in its own process`,
    );
    console.log(
      `  GET /v1/ledger/accounts?limit=10 through the gateway, ${REQUESTS} requests x ${ROUNDS} rounds per mode, ${CONCURRENCY} in flight, rate limits off, key cache on`,
    );

    await drive('warm-up secret', secret);
    await drive('warm-up signed', signed);
    for (let round = 1; round <= ROUNDS; round += 1) {
      results.push(await drive(`secret key, round ${round}`, secret));
      results.push(await drive(`signed request, round ${round}`, signed));
    }
  } finally {
    await system.stop();
  }

  console.log('');
  console.log('  mode                        requests/s   p50 ms   p99 ms');
  for (const row of results)
    console.log(
      `  ${row.label.padEnd(28)} ${row.perSecond.toFixed(0).padStart(10)} ${row.p50Ms.toFixed(2).padStart(8)} ${row.p99Ms.toFixed(2).padStart(8)}`,
    );
  const mean = (prefix: string) => {
    const rows = results.filter((row) => row.label.startsWith(prefix));
    return rows.reduce((sum, row) => sum + row.perSecond, 0) / rows.length;
  };
  const secretRate = mean('secret');
  const signedRate = mean('signed');
  console.log(
    `\n  mean: secret ${secretRate.toFixed(0)}/s, signed ${signedRate.toFixed(0)}/s, signed/secret = ${(signedRate / secretRate).toFixed(2)}`,
  );

  await dropSystem(serverUrl, amqpServerUrl, runId);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
