import { microBatch } from '@wallet/kit';

describe('microBatch', () => {
  it('serves the calls of one event-loop turn with one run, each caller getting its own result in order', async () => {
    const runs: number[][] = [];
    const double = microBatch<number, number>(async (items) => {
      runs.push(items);
      return items.map((item) => item * 2);
    });
    const results = await Promise.all([1, 2, 3, 4].map((item) => double(item)));
    expect(results).toEqual([2, 4, 6, 8]);
    expect(runs).toEqual([[1, 2, 3, 4]]);
    expect(await double(5)).toBe(10);
    expect(runs).toHaveLength(2);
  });

  it('starts a new batch when one is full, and fails every caller of a batch whose run fails', async () => {
    const sizes: number[] = [];
    const echo = microBatch<number, number>(
      async (items) => {
        sizes.push(items.length);
        if (items.includes(13)) throw new Error('unlucky batch');
        return items;
      },
      { maxItems: 3 },
    );
    const settled = await Promise.allSettled([1, 2, 3, 13, 5].map((item) => echo(item)));
    expect(sizes).toEqual([3, 2]);
    expect(settled.map((each) => each.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
  });

  it('refuses a run that answers a different number of results than items', async () => {
    const broken = microBatch<number, number>(async () => [1]);
    await expect(Promise.all([broken(1), broken(2)])).rejects.toThrow(/answered with 1 results/);
  });

  it('with lingerMs, gathers the calls of several turns into one run', async () => {
    const runs: number[][] = [];
    const echo = microBatch<number, number>(
      async (items) => {
        runs.push(items);
        return items;
      },
      { lingerMs: 1_000 },
    );
    const first = echo(1);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = echo(2);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(runs).toEqual([[1, 2]]);
  });

  it('with isolateFailures, runs a failed batch item by item so that only the bad item fails', async () => {
    const runs: number[][] = [];
    const strict = microBatch<number, number>(
      async (items) => {
        runs.push(items);
        if (items.includes(13)) throw new Error('unlucky item');
        return items.map((item) => item + 1);
      },
      { isolateFailures: true },
    );
    const settled = await Promise.allSettled([1, 13, 3].map((item) => strict(item)));
    expect(settled.map((each) => (each.status === 'fulfilled' ? each.value : 'failed'))).toEqual([2, 'failed', 4]);
    expect(runs).toEqual([[1, 13, 3], [1], [13], [3]]);
  });

  it('with concurrency, gathers the calls made while the runs are in flight into the next batch', async () => {
    const runs: number[][] = [];
    const releases: Array<() => void> = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const echo = microBatch<number, number>(
      async (items) => {
        runs.push(items);
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise<void>((resolve) => releases.push(resolve));
        inFlight -= 1;
        return items;
      },
      { concurrency: 1 },
    );
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const results: Array<Promise<number>> = [echo(1)];
    await turn();
    // The first run holds the only slot: calls of the next three turns wait, together.
    for (const item of [2, 3, 4]) {
      results.push(echo(item));
      await turn();
    }
    expect(runs).toEqual([[1]]);
    releases.shift()?.();
    await turn();
    expect(runs).toEqual([[1], [2, 3, 4]]);
    releases.shift()?.();
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4]);
    expect(mostInFlight).toBe(1);
    // Idle again: a lone call runs on the next turn, as without the option.
    const alone = echo(5);
    await turn();
    expect(runs).toHaveLength(3);
    releases.shift()?.();
    expect(await alone).toBe(5);
  });

  it('without concurrency, starts a batch every turn however many are in flight', async () => {
    const releases: Array<() => void> = [];
    const echo = microBatch<number, number>(async (items) => {
      await new Promise<void>((resolve) => releases.push(resolve));
      return items;
    });
    const results = [echo(1)];
    await new Promise((resolve) => setImmediate(resolve));
    results.push(echo(2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(releases).toHaveLength(2);
    for (const release of releases) release();
    expect(await Promise.all(results)).toEqual([1, 2]);
  });
});
