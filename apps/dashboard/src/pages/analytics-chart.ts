import type { AnalyticsCurrency } from '@wallet/contracts';

/** What the chart draws of a currency's analytics. */
type ChartedCurrency = Pick<AnalyticsCurrency, 'currencyCode'> & {
  daily: ReadonlyArray<Pick<AnalyticsCurrency['daily'][number], 'date' | 'volume' | 'feeRevenue'>>;
};

const DAY_MS = 86_400_000;

/**
 * The chart's days: every UTC day of the answer's range [from, to), a day without entries at zero,
 * so a quiet day shows as a gap in the bars rather than vanishing from the axis. The read models
 * count by UTC day; the axis says so, rather than pass UTC days off as local ones.
 */
export function chartDays(currency: ChartedCurrency, range: { from: string; to: string }): ChartedCurrency['daily'] {
  const byDate = new Map(currency.daily.map((day) => [day.date, day]));
  const days: Array<ChartedCurrency['daily'][number]> = [];
  for (let at = Date.parse(range.from); at < Date.parse(range.to); at += DAY_MS) {
    const date = new Date(at).toISOString().slice(0, 10);
    days.push(byDate.get(date) ?? { date, volume: '0', feeRevenue: '0' });
  }
  return days;
}

/**
 * The chart's option for one currency's daily volume and fee revenue (its days from chartDays). Chart values are for
 * display only: each decimal string becomes a JS number here, inside the chart, and nowhere
 * else; the exact figures are the totals shown beside the chart, formatted from the strings.
 * ECharts animates every draw unless told not to; someone who asked their system for reduced
 * motion gets the chart drawn at once.
 */
export function chartOption(currency: ChartedCurrency, { reduceMotion }: { reduceMotion: boolean }) {
  const days = currency.daily.map((day) => day.date);
  return {
    animation: !reduceMotion,
    aria: { enabled: true },
    tooltip: { trigger: 'axis' },
    // ECharts 6 puts the legend at the bottom: below the axis's name, with room for both.
    legend: { data: ['Volume', 'Fee revenue'], bottom: 0 },
    grid: { left: 64, right: 64, top: 40, bottom: 76 },
    xAxis: { type: 'category', data: days, name: 'Day (UTC)', nameLocation: 'middle', nameGap: 28 },
    yAxis: [
      { type: 'value', name: `Volume (${currency.currencyCode})` },
      { type: 'value', name: `Fees (${currency.currencyCode})` },
    ],
    series: [
      { name: 'Volume', type: 'bar', data: currency.daily.map((day) => Number(day.volume)) },
      { name: 'Fee revenue', type: 'line', yAxisIndex: 1, data: currency.daily.map((day) => Number(day.feeRevenue)) },
    ],
  };
}
