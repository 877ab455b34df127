import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { isReachable, publishTemplates } from '../packages/kit/src/testing/servers';
import { buildDashboard } from '../scripts/build';
import { stopSharedSystems } from './dashboard/shared-system';
import { migratedTemplates } from './migrated-templates';

const DEFAULT_PG = 'postgres://postgres@127.0.0.1:5432/postgres';
const DEFAULT_AMQP = 'amqp://guest:guest@127.0.0.1:5672';

function dockerAvailable(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

interface Stoppable {
  stop(): Promise<unknown>;
}
const started: Stoppable[] = [];

/**
 * Finds the servers tests run against: TEST_DATABASE_URL / TEST_AMQP_URL, else the local
 * servers, else throwaway containers when a Docker engine is present.
 */
export default async function globalSetup(): Promise<void> {
  let databaseUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_PG;
  let amqpUrl = process.env.TEST_AMQP_URL ?? DEFAULT_AMQP;
  const pgUp = await isReachable(databaseUrl, 5432);
  const amqpUp = await isReachable(amqpUrl, 5672);
  if ((!pgUp || !amqpUp) && dockerAvailable()) {
    const { GenericContainer, Wait } = await import('testcontainers');
    if (!pgUp) {
      const container = await new GenericContainer('postgres:16-alpine')
        .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
        .withExposedPorts(5432)
        .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
        .start();
      started.push(container);
      databaseUrl = `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
    }
    if (!amqpUp) {
      const container = await new GenericContainer('rabbitmq:3.13-management-alpine')
        .withExposedPorts(5672, 15672)
        .withWaitStrategy(Wait.forLogMessage(/Server startup complete/))
        .start();
      started.push(container);
      amqpUrl = `amqp://guest:guest@${container.getHost()}:${container.getMappedPort(5672)}`;
      process.env.TEST_AMQP_MANAGEMENT_URL = `http://${container.getHost()}:${container.getMappedPort(15672)}`;
    }
  } else if (!pgUp || !amqpUp) {
    throw new Error(
      `${!pgUp ? `PostgreSQL is not reachable at ${databaseUrl}` : `RabbitMQ is not reachable at ${amqpUrl}`}: start it (see README, "Running the tests") or set TEST_DATABASE_URL / TEST_AMQP_URL`,
    );
  }
  // Built once here, before the workers: the tests that start the system (scripts/start.ts) then find it up to date rather than race to build it.
  await buildDashboard();
  // Migrated once here, before the workers, so none races another to build a template.
  publishTemplates(await migratedTemplates(databaseUrl));
  process.env.WALLET_TEST_DATABASE_URL = databaseUrl;
  process.env.WALLET_TEST_AMQP_URL = amqpUrl;
  // Tests that age rows and purge them by hand must not race a service's own first pass: here it
  // comes one interval after the start, and a test that wants it sooner sets a short interval.
  process.env.RETENTION_FIRST_PASS_DELAY_MS ??= '86400000';
  process.env.WALLET_TEST_RUN_ID = `wt${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  process.env.WALLET_TEST_RUNNER_PID = String(process.pid);
  // A run killed before its teardown left its browser suites' system running: stopped here.
  await stopSharedSystems(process.env.WALLET_TEST_RUN_ID);
  (globalThis as { __walletContainers?: Stoppable[] }).__walletContainers = started;
}
