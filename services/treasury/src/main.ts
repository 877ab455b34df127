import { runMain, type RunningService, startPostings, startService } from '@wallet/kit';
import { migrations } from '../migrations';
import { analyticsConfigShape, startAnalytics } from './features/analytics/analytics-feature';
import { balancesConfigShape, startBalances } from './features/balances/balances-feature';
import { floatDepositsConfigShape, startFloatDeposits } from './features/float-deposits/float-deposits-feature';
import { declareTreasuryTopology, TREASURY_TOPOLOGY } from './topology';

export type { RunningService };

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  return startService(
    {
      name: 'treasury',
      port: { variable: 'TREASURY_PORT', defaultPort: 8094 },
      config: { ...balancesConfigShape, ...floatDepositsConfigShape, ...analyticsConfigShape },
      migrations,
      topology: declareTreasuryTopology,
      // Withdrawals mount here as they arrive.
      wire: async ({ db, relay, ...parts }) => {
        // Postings: features register their finishers, then the ledger events consumer starts.
        const postings = await startPostings({ db, relay, ...parts }, { service: 'treasury', eventsQueue: TREASURY_TOPOLOGY.ledgerEvents.queue });
        const balances = startBalances({ db, relay, ...parts });
        const floatDeposits = startFloatDeposits({ db, relay, ...parts }, { postings });
        const analytics = await startAnalytics({ db, relay, ...parts });
        await postings.start();
        return {
          routes: (app) => {
            balances.routes(app);
            floatDeposits.routes(app);
            analytics.routes(app);
          },
          stop: async () => {
            await postings.stop();
            await analytics.stop?.();
          },
        };
      },
    },
    env,
  );
}

if (require.main === module) runMain(() => start());
