import { dropRunDatabases, dropStaleRunDatabases } from '../packages/kit/src/testing/servers';

/**
 * `node --import tsx test/drop-run-databases.ts <server url> <run id>`, started detached by the
 * global teardown so that the run's result does not wait for it: drops the run's databases (each
 * DROP DATABASE waits for a checkpoint, some twenty seconds for a whole run's), then what runs
 * started over six hours ago left, a run killed before its teardown or a drop cut short.
 */
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

async function main(): Promise<void> {
  const [serverUrl, runId] = process.argv.slice(2);
  if (!serverUrl || !runId) throw new Error('usage: drop-run-databases.ts <server url> <run id>');
  await dropRunDatabases(serverUrl, runId);
  await dropStaleRunDatabases(serverUrl, STALE_AFTER_MS);
}

main().catch((error: unknown) => {
  console.error('could not drop test databases', error);
  process.exitCode = 1;
});
