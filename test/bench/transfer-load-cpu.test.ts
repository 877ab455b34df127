import { cpuPerTransfer, type ProcessCounters } from '../../scripts/lib/transfer-load';

/**
 * The benchmarks' CPU per transfer is a difference of /proc readings. A PostgreSQL backend that
 * ends inside the window (a pool closing an idle connection, a maintenance session) must take
 * only its own share with it, not subtract everything it did before the window.
 */
const counters = (ticks: number) => ({ ticks, systemTicks: Math.floor(ticks / 4), writes: ticks * 2, switches: ticks * 3 });

test('a process that ends or starts inside the window counts only what it did inside it', () => {
  const before: ProcessCounters = new Map([
    [
      'pg:payments',
      new Map([
        [101, counters(5_000)],
        [102, counters(1_000)],
      ]),
    ],
  ]);
  // 101 ended; 102 worked 50 ticks; 103 started and worked 30.
  const after: ProcessCounters = new Map([
    [
      'pg:payments',
      new Map([
        [102, counters(1_050)],
        [103, counters(30)],
      ]),
    ],
  ]);

  const [share] = cpuPerTransfer(before, after, 10);

  expect(share?.process).toBe('pg:payments');
  // 80 ticks of 10 ms over 10 transfers.
  expect(share?.msPerTransfer).toBeCloseTo(80, 6);
  expect(share?.systemMsPerTransfer).toBeCloseTo(((12 + 7) * 10) / 10, 6);
  expect(share?.writesPerTransfer).toBeCloseTo(16, 6);
  expect(share?.switchesPerTransfer).toBeCloseTo(24, 6);
});
