import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { createTestDatabase, createTestVhost, waitFor } from '@wallet/kit/testing';
import { type FetchLike, WalletClient } from '@wallet/sdk';
import { createTenant, type ScaleTenant } from '../../scripts/lib/scale-setup';
import { onFreePorts } from '../../scripts/lib/system-ports';

const ROOT = path.resolve(__dirname, '../..');
const SYSTEM_KEY = 'trace-system-key-0123456789abcdefghijklmnop';

/** OTLP/JSON span as the exporter sends it, with its service. */
interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  links?: Array<{ traceId: string; spanId: string }>;
}

const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** An OTLP/HTTP receiver: keeps every span the services export. */
async function startReceiver(): Promise<{ port: number; spans: ExportedSpan[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const payload = JSON.parse(body) as {
        resourceSpans: Array<{
          resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
          scopeSpans: Array<{ spans: Omit<ExportedSpan, 'service'>[] }>;
        }>;
      };
      for (const resourceSpans of payload.resourceSpans) {
        const service = resourceSpans.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue ?? '?';
        for (const scope of resourceSpans.scopeSpans) for (const span of scope.spans) spans.push({ ...span, service });
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The system's transport, sending the W3C context of a client span the test plays when one is set. */
function tracingFetch(parent: { traceparent: string | null }): FetchLike {
  return async (url, init) => {
    const headers = parent.traceparent ? { ...init.headers, traceparent: parent.traceparent } : init.headers;
    const answer = await fetch(url, { ...init, headers });
    return { status: answer.status, headers: answer.headers, text: () => answer.text() };
  };
}

function newClientSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/**
 * `npm start` (the services from their bundles, with the tracing preload) exporting to an OTLP
 * receiver in the test: one signed transfer is one trace from the gateway to the ledger's commit
 * and back to payments, also when it answered 202 and the ledger finished it later.
 */
describe('traces across the services', () => {
  let system: ChildProcess;
  let output = '';
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let tenant: ScaleTenant;
  const parent: { traceparent: string | null } = { traceparent: null };
  const env: NodeJS.ProcessEnv = { ...process.env, SYSTEM_API_KEY: SYSTEM_KEY, LOG_LEVEL: 'warn' };

  beforeAll(async () => {
    receiver = await startReceiver();
    for (const service of ['gateway', 'identity', 'ledger', 'payments', 'treasury'])
      env[`${service.toUpperCase()}_DATABASE_URL`] = await createTestDatabase(`trace_${service}`, { migratedFor: service });
    env.AMQP_URL = await createTestVhost('trace');
    await onFreePorts(env);
    for (const bucket of ['KEY', 'TENANT', 'IP']) env[`GATEWAY_RATE_LIMIT_${bucket}_PER_SECOND`] = '0';
    Object.assign(env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      PAYMENTS_TRANSFER_REPLY_TIMEOUT_MS: '1000',
    });
    system = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/start.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    system.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    system.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(
      async () => {
        if (system.exitCode !== null) throw new Error(`npm start exited early:\n${output}`);
        try {
          return (await fetch(`http://127.0.0.1:${env.GATEWAY_PORT}/readyz`)).ok ? true : undefined;
        } catch {
          return undefined;
        }
      },
      { timeoutMs: 90_000, intervalMs: 250, what: 'the system to be ready' },
    );
    const platform = new WalletClient({ baseUrl: `http://127.0.0.1:${env.ADMIN_PORT}`, auth: { type: 'system', systemKey: SYSTEM_KEY } });
    tenant = await createTenant(
      platform,
      `http://127.0.0.1:${env.GATEWAY_PORT}`,
      { name: 'Traced', slug: `traced-${Date.now()}`, wallets: 2, funds: '100.00', fees: true },
      tracingFetch(parent),
    );
  });

  afterAll(async () => {
    if (system && system.exitCode === null) {
      const exited = new Promise((resolve) => system.once('exit', resolve));
      system.kill('SIGTERM');
      await exited;
    }
    await receiver?.close();
  });

  async function tracedTransfer(amount: string): Promise<{ traceId: string; clientSpanId: string; status: number }> {
    const client = newClientSpan();
    parent.traceparent = client.traceparent;
    let status = 0;
    try {
      const [from, to] = tenant.wallets;
      await tenant.client.transfers.create(
        { fromWalletId: from?.id as string, toWalletId: to?.id as string, amount, currencyCode: 'USD' },
        { onResponse: (meta) => (status = meta.status) },
      );
    } finally {
      parent.traceparent = null;
    }
    return { traceId: client.traceId, clientSpanId: client.spanId, status };
  }

  /** The trace's spans once it holds the ones named; every parent is in it (or is the test's client span). */
  async function connectedTrace(
    traceId: string,
    clientSpanId: string,
    needed: (spans: ExportedSpan[]) => boolean,
  ): Promise<ExportedSpan[]> {
    await waitFor(async () => (needed(receiver.spans.filter((span) => span.traceId === traceId)) ? true : undefined), {
      timeoutMs: 30_000,
      what: `the spans of trace ${traceId}`,
    });
    // The exporter flushes every 100 ms: what the last steps add arrives a moment later.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const all = receiver.spans.filter((span) => span.traceId === traceId);
    const ids = new Set([clientSpanId, ...all.map((span) => span.spanId)]);
    const orphans = all.filter((span) => !span.parentSpanId || !ids.has(span.parentSpanId));
    expect(orphans.map((span) => `${span.service} ${span.name}`)).toEqual([]);
    return all;
  }

  const has = (spans: ExportedSpan[], service: string, kind: number, name?: RegExp) =>
    spans.some((span) => span.service === service && span.kind === kind && (!name || name.test(span.name)));

  it('follows one signed transfer from the gateway to the ledger commit and back, in one trace', async () => {
    const transfer = await tracedTransfer('1.00');
    expect(transfer.status).toBe(201);
    const spans = await connectedTrace(
      transfer.traceId,
      transfer.clientSpanId,
      (found) =>
        has(found, 'ledger', SPAN_KIND.internal, /^ledger commit$/) && has(found, 'payments', SPAN_KIND.internal, /^finish transfer$/),
    );

    expect(has(spans, 'gateway', SPAN_KIND.server)).toBe(true);
    expect(has(spans, 'gateway', SPAN_KIND.client)).toBe(true);
    expect(has(spans, 'payments', SPAN_KIND.server)).toBe(true);
    expect(has(spans, 'payments', SPAN_KIND.client, /^pg/)).toBe(true);
    expect(has(spans, 'payments', SPAN_KIND.producer, /^ledger\.commands\.by-tenant publish$/)).toBe(true);
    expect(has(spans, 'ledger', SPAN_KIND.consumer, /^ledger\.commands\.p\d+ process$/)).toBe(true);
    expect(has(spans, 'ledger', SPAN_KIND.client, /^pg/)).toBe(true);
    // The commit serves a batch of commands: it links to the span the command was sent from.
    const commit = spans.find((span) => span.name === 'ledger commit') as ExportedSpan;
    const payments = new Set(spans.filter((span) => span.service === 'payments').map((span) => span.spanId));
    expect(commit.links?.some((link) => link.traceId === transfer.traceId && payments.has(link.spanId))).toBe(true);
  });

  it('ends a transfer answered 202 (the ledger stopped, then resumed) in the same trace', async () => {
    const ledger = execFileSync('pgrep', ['-P', String(system.pid), '-f', 'dist/ledger.js'])
      .toString()
      .trim()
      .split('\n')[0] as string;
    process.kill(Number(ledger), 'SIGSTOP');
    let transfer: Awaited<ReturnType<typeof tracedTransfer>>;
    try {
      transfer = await tracedTransfer('2.00');
    } finally {
      process.kill(Number(ledger), 'SIGCONT');
    }
    expect(transfer.status).toBe(202);
    // Finished by the ledger's event, in the command's trace.
    const spans = await connectedTrace(
      transfer.traceId,
      transfer.clientSpanId,
      (found) =>
        has(found, 'ledger', SPAN_KIND.internal, /^ledger commit$/) && has(found, 'payments', SPAN_KIND.internal, /^finish transfer$/),
    );
    expect(has(spans, 'gateway', SPAN_KIND.server)).toBe(true);
    expect(has(spans, 'payments', SPAN_KIND.producer, /^ledger\.commands\.by-tenant publish$/)).toBe(true);
    expect(has(spans, 'ledger', SPAN_KIND.consumer, /^ledger\.commands\.p\d+ process$/)).toBe(true);
    const stored = await tenant.client.transfers.get((await tenant.client.transfers.list({ limit: 1 })).data[0]?.id as string);
    expect(stored.status).toBe('completed');
  });
});
