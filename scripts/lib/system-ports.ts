import { freePort } from '@wallet/kit/testing';
import { GATEWAY_LISTENER_PORT_VARIABLES, SERVICES, urlVariableOf } from './service-processes';

/** The ports `npm start` listens on: each process's and the gateway's admin and dashboard listeners. */
export const SYSTEM_PORT_VARIABLES = [...SERVICES.map((spec) => spec.portVariable), ...GATEWAY_LISTENER_PORT_VARIABLES];

/**
 * Gives a system that `npm start` will run a free port for every listener, and lets it find its
 * services where it starts them: so several systems run side by side on one machine.
 */
export async function onFreePorts(env: NodeJS.ProcessEnv): Promise<void> {
  for (const variable of SYSTEM_PORT_VARIABLES) env[variable] = String(await freePort());
  for (const spec of SERVICES) {
    const variable = urlVariableOf(spec);
    if (variable) delete env[variable];
  }
}
