/** A task run on a timer, stopped by `stop()`, which waits for a run in progress. */
export interface Repeating {
  stop(): Promise<void>;
}

/**
 * Runs `task` every `intervalMs`. A run still going when the next tick comes is not stacked on
 * (the tick is skipped); a failed run goes to `onError` and the next tick tries again. The timer
 * does not keep the process alive.
 */
export function startRepeating(
  task: () => Promise<unknown>,
  options: { intervalMs: number; onError: (error: unknown) => void },
): Repeating {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = task()
      .catch(options.onError)
      .finally(() => {
        running = null;
      });
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      if (running) await running;
    },
  };
}
