import { runMain, type RunningService, startService } from '@wallet/kit';
import { migrations } from '../migrations';
import { declareTreasuryTopology } from './topology';

export type { RunningService };

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  return startService(
    {
      name: 'treasury',
      port: { variable: 'TREASURY_PORT', defaultPort: 8094 },
      config: {},
      migrations,
      topology: declareTreasuryTopology,
      // Float deposits, withdrawals and analytics mount here as they arrive.
      wire: async () => ({ routes: () => undefined }),
    },
    env,
  );
}

if (require.main === module) runMain(() => start());
