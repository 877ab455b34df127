import { runMain, type RunningService, startService } from '@wallet/kit';
import { migrations } from '../migrations';
import { declarePaymentsTopology } from './topology';

export type { RunningService };

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  return startService(
    {
      name: 'payments',
      port: { variable: 'PAYMENTS_PORT', defaultPort: 8093 },
      config: {},
      migrations,
      topology: declarePaymentsTopology,
      // Wallets, deposits, transfers, payouts and fees mount here as they arrive.
      wire: async () => ({ routes: () => undefined }),
    },
    env,
  );
}

if (require.main === module) runMain(() => start());
