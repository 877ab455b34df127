import pino from 'pino';
import { currentContext } from './context';

export type Logger = pino.Logger;

/** JSON logs; every line written inside a request or message carries its correlation id. */
export function createLogger(options: { service: string; level?: string }): Logger {
  return pino({
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const context = currentContext();
      return context ? { correlationId: context.correlationId } : {};
    },
  });
}
