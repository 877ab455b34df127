import { staleRunDatabases } from '../src/testing/servers';

describe('the databases of stale test runs', () => {
  const now = Date.parse('2026-12-02T12:00:00Z');
  const runStarted = (iso: string, suffix = 'ab12') => `wt${Date.parse(iso).toString(36)}${suffix}`;
  const hours = (count: number) => count * 60 * 60 * 1000;

  it('are those of runs that started before the age limit, whatever their label', () => {
    const old = runStarted('2026-12-02T05:00:00Z');
    const recent = runStarted('2026-12-02T11:00:00Z', 'cd34');
    const names = [`${old}_payments_ledger_0a1b2c`, `${old}_browser_gateway_3d4e5f`, `${recent}_payments_ledger_6a7b8c`];
    expect(staleRunDatabases(names, now, hours(6))).toEqual([`${old}_payments_ledger_0a1b2c`, `${old}_browser_gateway_3d4e5f`]);
  });

  it('never include a template, a database of another kind, or a name that only looks like a run', () => {
    const names = ['wallet_tpl_ledger_f24725c600a788f8', 'postgres', 'test', 'wtnotarun_x', `wt${'z'.repeat(8)}ab12_far_future`];
    expect(staleRunDatabases(names, now, hours(6))).toEqual([]);
  });
});
