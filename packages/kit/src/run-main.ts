import { flushTelemetry } from './telemetry';

/**
 * Runs a service as a process: start it, and on SIGTERM or SIGINT close it (finishing the
 * batch in hand, closing connections) before exiting, so a stop loses nothing in flight.
 */
export function runMain(start: () => Promise<{ close(): Promise<void> }>): void {
  start().then(
    (running) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals): void => {
        if (stopping) return;
        stopping = true;
        const forced = setTimeout(() => process.exit(1), 15_000);
        forced.unref();
        running
          .close()
          .then(flushTelemetry)
          .then(
            () => process.exit(0),
            (error: unknown) => {
              console.error(`error while stopping on ${signal}`, error);
              process.exit(1);
            },
          );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
