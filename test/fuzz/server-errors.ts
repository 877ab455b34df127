import { Writable } from 'node:stream';

/**
 * What the in-process services logged at level error, by correlation id: a 500's body says only
 * "Something went wrong", the log says why ("invalid byte sequence for encoding UTF8: 0x00").
 * The fuzz test hands this stream to every pino logger (jest.mock of pino in the test file).
 */
const ERROR_LEVEL = 50;
const KEPT = 2_000;

interface ServerErrorLog {
  byCorrelationId: Map<string, string>;
}

function log(): ServerErrorLog {
  const holder = globalThis as { __fuzzServerErrors?: ServerErrorLog };
  holder.__fuzzServerErrors ??= { byCorrelationId: new Map() };
  return holder.__fuzzServerErrors;
}

function record(line: string): void {
  let entry: { level?: number; correlationId?: string; msg?: string; service?: string; err?: { message?: string } };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return;
  }
  if ((entry.level ?? 0) < ERROR_LEVEL || !entry.correlationId) return;
  const { byCorrelationId } = log();
  const message = `${entry.service ?? 'service'}: ${entry.err?.message ?? entry.msg ?? 'error'}`.slice(0, 4_000);
  // The first error of a request is its cause; later ones (the gateway relaying the 500) are not.
  if (!byCorrelationId.has(entry.correlationId)) byCorrelationId.set(entry.correlationId, message);
  if (byCorrelationId.size > KEPT) byCorrelationId.delete(byCorrelationId.keys().next().value as string);
}

export function serverLogSink(): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) record(line);
      callback();
    },
  });
}

export function serverErrorOf(correlationId: string): string | undefined {
  return log().byCorrelationId.get(correlationId);
}
