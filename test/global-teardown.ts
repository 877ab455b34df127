import { spawn } from 'node:child_process';
import path from 'node:path';
import { dropRunVhosts } from '../packages/kit/src/testing/servers';
import { stopSharedSystems } from './dashboard/shared-system';

/**
 * Stops the system the browser suites shared and drops the run's vhosts, then leaves its databases
 * to a detached process (test/drop-run-databases.ts): the result is known, and their drops took
 * the last twenty seconds of a run.
 */
export default async function globalTeardown(): Promise<void> {
  const { WALLET_TEST_DATABASE_URL: databaseUrl, WALLET_TEST_AMQP_URL: amqpUrl, WALLET_TEST_RUN_ID: runId } = process.env;
  if (runId) await stopSharedSystems(runId).catch((error: unknown) => console.warn('could not stop the shared browser system', error));
  if (databaseUrl && runId) dropDatabasesDetached(databaseUrl, runId);
  if (amqpUrl && runId) await dropRunVhosts(amqpUrl, runId).catch((error: unknown) => console.warn('could not drop test vhosts', error));
  const containers = (globalThis as { __walletContainers?: Array<{ stop(): Promise<unknown> }> }).__walletContainers ?? [];
  for (const container of containers) await container.stop();
}

function dropDatabasesDetached(databaseUrl: string, runId: string): void {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'drop-run-databases.ts'), databaseUrl, runId], {
    cwd: path.resolve(__dirname, '..'),
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
}
