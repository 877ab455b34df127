import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export interface ServiceMetrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  counter(name: string, help: string, labelNames?: string[]): Counter<string>;
  histogram(name: string, help: string, buckets: number[], labelNames?: string[]): Histogram<string>;
}

export function createMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return {
    registry,
    httpDuration,
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers: [registry] }),
    histogram: (name, help, buckets, labelNames = []) => new Histogram({ name, help, buckets, labelNames, registers: [registry] }),
  };
}
