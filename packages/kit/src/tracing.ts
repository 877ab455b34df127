import {
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/**
 * Spans the instrumentations cannot see: AMQP publishes and deliveries, the ledger's commit of a
 * batch, a record finished from the ledger's answer. Without a registered SDK (no
 * OTEL_EXPORTER_OTLP_ENDPOINT, see telemetry-preload.ts) the API is a no-op: spans are not
 * recording, and propagation writes no header, so messages carry nothing extra.
 */
const tracer = trace.getTracer('wallet');

/** W3C trace context fields as they ride in message headers and in commands and results. */
export interface TraceFields {
  traceparent?: string;
  tracestate?: string;
}

/** The trace context of `from` (the active one by default) as W3C headers; empty when tracing is off. */
export function traceHeaders(from: Context = context.active()): TraceFields {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  const fields: TraceFields = {};
  if (carrier.traceparent) fields.traceparent = carrier.traceparent;
  if (carrier.tracestate) fields.tracestate = carrier.tracestate;
  return fields;
}

/** The context named by W3C fields (message headers, a command's or a result's fields). */
export function contextFrom(fields: Readonly<Record<string, unknown>> | undefined): Context {
  if (!fields || typeof fields.traceparent !== 'string') return ROOT_CONTEXT;
  const carrier: Record<string, string> = { traceparent: fields.traceparent };
  if (typeof fields.tracestate === 'string') carrier.tracestate = fields.tracestate;
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** Links to the spans named by each of `fields`, those that name one. */
export function linksTo(fields: ReadonlyArray<Readonly<Record<string, unknown>> | undefined>): Link[] {
  const links: Link[] = [];
  for (const each of fields) {
    const spanContext = trace.getSpanContext(contextFrom(each));
    if (spanContext) links.push({ context: spanContext });
  }
  return links;
}

export interface SpanOptions {
  kind?: SpanKind;
  /** The parent; the active context by default. */
  parent?: Context;
  links?: Link[];
  attributes?: Record<string, string | number | boolean>;
}

/** Runs `work` in a new span, ended when it settles (an error is recorded on it). */
export async function inSpan<Result>(name: string, options: SpanOptions, work: (span: Span) => Promise<Result>): Promise<Result> {
  const { span, context: active } = startSpan(name, options);
  try {
    return await context.with(active, () => work(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** A span started now and ended by the caller (for work that ends in a callback). */
export function startSpan(name: string, options: SpanOptions): { span: Span; context: Context } {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, links: options.links, attributes: options.attributes },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/** The active context (to resume later, as a parent). */
export function activeContext(): Context {
  return context.active();
}

/** Runs `work` with `parent` as the active context (a delivery's, a result's). */
export function withContext<Result>(parent: Context, work: () => Result): Result {
  return context.with(parent, work);
}

/** The active span's ids, for log lines; empty when there is none (tracing off). */
export function traceIds(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getSpanContext(context.active());
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

export { SpanKind };
export type { Context, Span };
