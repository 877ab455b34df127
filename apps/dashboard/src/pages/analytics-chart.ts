import type { AnalyticsCurrency } from '@wallet/contracts';

/** What the chart draws of a currency's analytics. */
type ChartedCurrency = Pick<AnalyticsCurrency, 'currencyCode'> & {
  daily: ReadonlyArray<Pick<AnalyticsCurrency['daily'][number], 'date' | 'volume' | 'feeRevenue'>>;
};

/**
 * The chart's option for one currency's daily volume and fee revenue. Chart values are for
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
    legend: { data: ['Volume', 'Fee revenue'] },
    grid: { left: 64, right: 64, top: 40, bottom: 32 },
    xAxis: { type: 'category', data: days },
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
