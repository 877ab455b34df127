/**
 * The `concurrency` for batches of database statements on a request's path: one statement of
 * a kind running while the next gathers, and a second one so that a slow commit does not stall
 * the kind. More would only split the same load into smaller statements.
 */
export const STATEMENT_BATCH_CONCURRENCY = 2;

/** Runs a flush later: at the end of this turn, or after `lingerMs`; returns how to call that off. */
function scheduler(lingerMs: number | undefined): (flushNow: () => void) => () => void {
  return (flushNow) => {
    if (lingerMs === undefined) {
      const immediate = setImmediate(flushNow);
      return () => clearImmediate(immediate);
    }
    const timer = setTimeout(flushNow, lingerMs).unref();
    return () => clearTimeout(timer);
  };
}

/**
 * Gathers the calls made while the event loop runs one turn and serves them with one call of
 * `run`: many requests in flight then share one statement (and one commit) instead of one
 * each, without any added wait (the batch goes out on the next turn, `setImmediate`). `run`
 * answers the items in order; when it throws, every caller of that batch gets the error.
 *
 * With `lingerMs`, a batch gathers for that long after its first call instead: for work nobody
 * waits on (cleanup), where fewer, larger runs matter more than promptness.
 *
 * With `concurrency`, at most that many runs are in flight: calls made meanwhile gather into the
 * next batch, which starts when a run ends. Under load batches then grow by themselves to what
 * arrives during one run (as a database's group commit does), where a batch every turn would
 * send many small statements side by side; when idle, nothing waits.
 *
 * With `isolateFailures`, a batch whose run throws is run again item by item, each caller
 * getting its own item's outcome: for a run that is one statement (it wrote nothing when it
 * failed), so that one bad item does not fail its neighbours.
 */
export function microBatch<Item, Result>(
  run: (items: Item[]) => Promise<Result[]>,
  options: { maxItems?: number; lingerMs?: number; isolateFailures?: boolean; concurrency?: number } = {},
): (item: Item) => Promise<Result> {
  const maxItems = options.maxItems ?? 256;
  const concurrency = options.concurrency ?? Number.POSITIVE_INFINITY;
  if (!(concurrency >= 1)) throw new Error(`micro-batch concurrency must be at least 1, got ${concurrency}`);
  let running = 0;
  const schedule = scheduler(options.lingerMs);
  const pending: Array<{ item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  let cancelScheduled: (() => void) | null = null;

  function flush(): void {
    cancelScheduled?.();
    cancelScheduled = null;
    // At the limit, what gathered waits for the end of a run (see `finished`).
    while (pending.length > 0 && running < concurrency) start(pending.splice(0, maxItems));
  }

  function finished(): void {
    running -= 1;
    if (pending.length > 0) flush();
  }

  function start(batch: typeof pending): void {
    running += 1;
    run(batch.map((entry) => entry.item))
      .then(
        (results) => {
          if (results.length !== batch.length)
            throw new Error(`a micro-batch of ${batch.length} was answered with ${results.length} results`);
          batch.forEach((entry, index) => entry.resolve(results[index] as Result));
        },
        (error: unknown) => {
          if (options.isolateFailures && batch.length > 1) runAlone(batch);
          else batch.forEach((entry) => entry.reject(error));
        },
      )
      .catch((error: unknown) => batch.forEach((entry) => entry.reject(error)))
      .finally(finished);
  }

  /** After a batch failed: each item on its own, so a bad item fails only its own caller. */
  function runAlone(batch: typeof pending): void {
    for (const entry of batch) {
      run([entry.item]).then(
        (results) =>
          results.length === 1
            ? entry.resolve(results[0] as Result)
            : entry.reject(new Error(`a micro-batch of 1 was answered with ${results.length} results`)),
        entry.reject,
      );
    }
  }

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (pending.length >= maxItems) flush();
      else cancelScheduled ??= schedule(flush);
    });
}
