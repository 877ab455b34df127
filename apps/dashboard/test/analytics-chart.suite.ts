import { chartDays, chartOption } from '../src/pages/analytics-chart';

const currency = {
  currencyCode: 'UGX',
  daily: [
    { date: '2026-11-30', volume: '1000', feeRevenue: '4' },
    { date: '2026-12-01', volume: '2000.5', feeRevenue: '8.25' },
  ],
};

describe("the overview's chart", () => {
  it('is drawn at once for someone who asked for reduced motion, and animated otherwise', () => {
    expect(chartOption(currency, { reduceMotion: true }).animation).toBe(false);
    expect(chartOption(currency, { reduceMotion: false }).animation).toBe(true);
  });

  it('plots each day of the series, labelled in the currency', () => {
    const option = chartOption(currency, { reduceMotion: true });
    expect(option.xAxis.data).toEqual(['2026-11-30', '2026-12-01']);
    expect(option.series.map((series) => series.data)).toEqual([
      [1000, 2000.5],
      [4, 8.25],
    ]);
    expect(option.yAxis.map((axis) => axis.name)).toEqual(['Volume (UGX)', 'Fees (UGX)']);
    expect(option.xAxis.name).toBe('Day (UTC)');
  });

  it('has every UTC day of the range, a quiet one at zero', () => {
    const days = chartDays(currency, { from: '2026-11-28T00:00:00.000Z', to: '2026-12-02T00:00:00.000Z' });
    expect(days).toEqual([
      { date: '2026-11-28', volume: '0', feeRevenue: '0' },
      { date: '2026-11-29', volume: '0', feeRevenue: '0' },
      ...currency.daily,
    ]);
  });
});
