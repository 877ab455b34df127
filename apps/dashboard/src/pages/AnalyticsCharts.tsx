import { SegmentedControl, SimpleGrid, Stack, Text } from '@mantine/core';
import { useReducedMotion } from '@mantine/hooks';
import type { TenantAnalytics } from '@wallet/contracts';
import { BarChart, LineChart } from 'echarts/charts';
import { AriaComponent, GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
// The ES module build: the CommonJS one's default export reaches the bundle as its module object, which React cannot render.
import ReactEChartsCore from 'echarts-for-react/esm/core';
import { useState } from 'react';
import { Money } from '../components/Money';
import { chartDays, chartOption } from './analytics-chart';

// Only the parts of ECharts these charts use, so the lazily loaded chunk stays small.
echarts.use([BarChart, LineChart, GridComponent, TooltipComponent, LegendComponent, AriaComponent, SVGRenderer]);

/** The analytics charts of the overview; loaded lazily with ECharts. */
export default function AnalyticsCharts({ analytics }: { analytics: TenantAnalytics }) {
  const [currencyCode, setCurrencyCode] = useState(analytics.currencies[0]?.currencyCode ?? '');
  // Read at once rather than after the first paint, which would start the animation it stops.
  const reduceMotion = useReducedMotion(false, { getInitialValueInEffect: false });
  const currency = analytics.currencies.find((candidate) => candidate.currencyCode === currencyCode) ?? analytics.currencies[0];
  if (!currency) return null;
  const daily = chartDays(currency, analytics);
  return (
    <Stack>
      {analytics.currencies.length > 1 && (
        <SegmentedControl
          aria-label="Currency"
          value={currency.currencyCode}
          onChange={setCurrencyCode}
          data={analytics.currencies.map((entry) => entry.currencyCode)}
        />
      )}
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <div>
          <Text size="sm" c="dimmed">
            Volume
          </Text>
          <Text fw={700}>
            <Money amount={currency.totals.volume} currencyCode={currency.currencyCode} />
          </Text>
        </div>
        <div>
          <Text size="sm" c="dimmed">
            Fee revenue
          </Text>
          <Text fw={700}>
            <Money amount={currency.totals.feeRevenue} currencyCode={currency.currencyCode} />
          </Text>
        </div>
        <div>
          <Text size="sm" c="dimmed">
            Entries
          </Text>
          <Text fw={700}>{currency.totals.entryCount}</Text>
        </div>
      </SimpleGrid>
      <div
        role="img"
        aria-label={`Daily volume and fee revenue in ${currency.currencyCode}, ${daily.length} UTC days from ${daily[0]?.date ?? '—'} to ${daily.at(-1)?.date ?? '—'}`}
      >
        <ReactEChartsCore
          echarts={echarts}
          option={chartOption({ ...currency, daily }, { reduceMotion })}
          notMerge
          style={{ height: 320 }}
        />
      </div>
    </Stack>
  );
}
