import { freePort } from '@wallet/kit/testing';

/** The ports `npm start` listens on (scripts/start.ts), each service's and the gateway's admin and dashboard listeners. */
export const SYSTEM_PORT_VARIABLES = [
  'GATEWAY_PORT',
  'ADMIN_PORT',
  'DASHBOARD_PORT',
  'IDENTITY_PORT',
  'LEDGER_PORT',
  'PAYMENTS_PORT',
  'TREASURY_PORT',
  'WEBHOOKS_PORT',
] as const;

/**
 * Gives a system that `npm start` will run a free port for every listener, and lets it find its
 * services where it starts them: so several systems run side by side on one machine.
 */
export async function onFreePorts(env: NodeJS.ProcessEnv): Promise<void> {
  for (const variable of SYSTEM_PORT_VARIABLES) env[variable] = String(await freePort());
  for (const service of ['IDENTITY', 'LEDGER', 'PAYMENTS', 'TREASURY']) delete env[`${service}_URL`];
}
