/**
 * Loaded with `node --require` before a service's code (scripts/start.ts, the Dockerfile,
 * test helpers), so the instrumentations patch `http`, `express`, `pg` and undici before anything
 * requires them: a bundle requires its npm dependencies as its first statements, before any code
 * of the service could start an SDK. Off, and nothing loaded, unless OTEL_EXPORTER_OTLP_ENDPOINT
 * is set. The service's name comes from OTEL_SERVICE_NAME; sampling from OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG (parentbased_always_on by default, so a sampled client request is
 * followed through every service).
 */
import type { IncomingMessage } from 'node:http';

const OPERATIONS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

function isOperationsRequest(request: IncomingMessage): boolean {
  return OPERATIONS_PATHS.has((request.url ?? '').split('?')[0] ?? '');
}

function start(): void {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      // Probes and scrapes are not requests anybody follows.
      new HttpInstrumentation({ ignoreIncomingRequestHook: isOperationsRequest }),
      // Middleware spans would double every request's span count for nothing an operator reads.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      // Background polls (the outbox relay, retention, reconciliation pacing) would each be a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  sdk.start();
  (globalThis as { __walletTelemetry?: { forceFlush(): Promise<void> } }).__walletTelemetry = {
    forceFlush: async () => {
      await sdk.shutdown();
    },
  };
}

if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) start();
