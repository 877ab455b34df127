import { dropRunDatabases, dropRunVhosts } from '../packages/kit/src/testing/servers';
import { stopSharedSystems } from './dashboard/shared-system';

/** Stops the system the browser suites shared, then drops every database and vhost this run made. */
export default async function globalTeardown(): Promise<void> {
  const { WALLET_TEST_DATABASE_URL: databaseUrl, WALLET_TEST_AMQP_URL: amqpUrl, WALLET_TEST_RUN_ID: runId } = process.env;
  if (runId) await stopSharedSystems(runId).catch((error: unknown) => console.warn('could not stop the shared browser system', error));
  if (databaseUrl && runId)
    await dropRunDatabases(databaseUrl, runId).catch((error: unknown) => console.warn('could not drop test databases', error));
  if (amqpUrl && runId) await dropRunVhosts(amqpUrl, runId).catch((error: unknown) => console.warn('could not drop test vhosts', error));
  const containers = (globalThis as { __walletContainers?: Array<{ stop(): Promise<unknown> }> }).__walletContainers ?? [];
  for (const container of containers) await container.stop();
}
