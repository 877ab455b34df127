import pino from 'pino';
import { currentContext } from './context';
import { traceIds } from './tracing';

export type Logger = pino.Logger;

/** JSON logs; every line written inside a request or message carries its correlation id, and its trace and span ids when tracing is on. */
export function createLogger(options: { service: string; level?: string }): Logger {
  return pino({
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const context = currentContext();
      const ids = traceIds();
      return context ? { correlationId: context.correlationId, ...ids } : ids;
    },
  });
}
