/** The processes `npm start` runs (scripts/start.ts): each service, and instances of one that do part of its work. */
export interface ServiceSpec {
  name: string;
  portVariable: string;
  defaultPort: number;
  /**
   * A process that is an instance of another service: that service's bundle on this process's
   * port, with `env`; while it runs, the service itself runs with `serviceEnv`.
   */
  instanceOf?: { service: string; portVariable: string; env: Record<string, string>; serviceEnv: Record<string, string> };
  /** The process's nice value: work that may wait while the money path needs the machine's cores. */
  niceness?: number;
}

export const SERVICES: readonly ServiceSpec[] = [
  { name: 'gateway', portVariable: 'GATEWAY_PORT', defaultPort: 8080 },
  { name: 'identity', portVariable: 'IDENTITY_PORT', defaultPort: 8091 },
  { name: 'ledger', portVariable: 'LEDGER_PORT', defaultPort: 8092 },
  { name: 'payments', portVariable: 'PAYMENTS_PORT', defaultPort: 8093 },
  { name: 'treasury', portVariable: 'TREASURY_PORT', defaultPort: 8094 },
  // Identity's webhook delivery (docs/events.md): its own process, behind the money path on a shared machine.
  {
    name: 'webhooks',
    portVariable: 'WEBHOOKS_PORT',
    defaultPort: 8095,
    instanceOf: {
      service: 'identity',
      portVariable: 'IDENTITY_PORT',
      env: { WEBHOOK_DELIVERY: 'true' },
      serviceEnv: { WEBHOOK_DELIVERY: 'false' },
    },
    niceness: 10,
  },
];

/** The gateway's own listeners besides its public port. */
export const GATEWAY_LISTENER_PORT_VARIABLES = ['ADMIN_PORT', 'DASHBOARD_PORT'] as const;

export function portOf(spec: ServiceSpec, env: NodeJS.ProcessEnv): number {
  return Number(env[spec.portVariable] ?? spec.defaultPort);
}

/** The service whose bundle a process runs. */
export function serviceOf(spec: ServiceSpec): string {
  return spec.instanceOf?.service ?? spec.name;
}

/** Where the gateway finds a service (`IDENTITY_URL`, ...); null for the gateway itself and for instances nobody calls. */
export function urlVariableOf(spec: ServiceSpec): string | null {
  return spec.name === 'gateway' || spec.instanceOf ? null : `${spec.name.toUpperCase()}_URL`;
}

/** The variables a process starts with: an instance takes its own port, and a service those of its instances that run. */
export function processEnv(spec: ServiceSpec, running: readonly ServiceSpec[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own: NodeJS.ProcessEnv = { ...env, OTEL_SERVICE_NAME: env.OTEL_SERVICE_NAME ?? spec.name };
  if (spec.instanceOf) Object.assign(own, spec.instanceOf.env, { [spec.instanceOf.portVariable]: String(portOf(spec, env)) });
  for (const instance of running) if (instance.instanceOf?.service === spec.name) Object.assign(own, instance.instanceOf.serviceEnv);
  return own;
}
