import { runMain, type RunningService, startService } from '@wallet/kit';
import { migrations } from '../migrations';
import { feesRouter } from './features/fees/fees-router';
import { FeesService } from './features/fees/fees-service';
import { startTenantReadModel, tenantsConfigShape } from './features/tenants/tenants-feature';
import { startWallets, walletsConfigShape } from './features/wallets/wallets-feature';
import { declarePaymentsTopology } from './topology';

export type { RunningService };

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  return startService(
    {
      name: 'payments',
      port: { variable: 'PAYMENTS_PORT', defaultPort: 8093 },
      config: { ...tenantsConfigShape, ...walletsConfigShape },
      migrations,
      topology: declarePaymentsTopology,
      // Wallets, deposits, transfers, payouts and fees mount here as they arrive.
      wire: async ({ db, relay, ...parts }) => {
        const tenants = await startTenantReadModel({ db, relay, ...parts });
        const wallets = await startWallets({ db, relay, ...parts }, { tenants });
        const fees = new FeesService({ db, relay });
        return {
          routes: (app) => {
            app.use(feesRouter(fees));
            wallets.routes(app);
          },
          stop: async () => wallets.stop?.(),
        };
      },
    },
    env,
  );
}

if (require.main === module) runMain(() => start());
