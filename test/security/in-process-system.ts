import net from 'node:net';
import { createDb, type Db } from '@wallet/kit';
import { createTestDatabase, createTestVhost } from '@wallet/kit/testing';
import { type GatewayOptions, type RunningGateway, start as startGateway } from '../../services/gateway/src/main';
import { start as startIdentity } from '../../services/identity/src/main';
import { start as startLedger } from '../../services/ledger/src/main';
import { start as startPayments } from '../../services/payments/src/main';
import { start as startTreasury } from '../../services/treasury/src/main';

export const SYSTEM_KEY = 'security-tests-system-key-0123456789abcdefgh';
const INTERNAL_SECRET = 'security-tests-internal-token-secret-0123456789';
/** `<id>:<base64 of 32 bytes>`, as identity expects its master key. */
export const MASTER_KEY = `test1:${Buffer.alloc(32, 7).toString('base64')}`;

interface Closable {
  close(): Promise<void>;
}

/**
 * The services a tenant's security path crosses (gateway, identity, ledger, payments), real and
 * in-process, on fresh databases and one fresh vhost. Gateways can be added: they share the
 * gateway database (nonces, rate limits) like instances of one deployment.
 */
export interface SecuritySystem {
  publicUrl: string;
  adminUrl: string;
  env: NodeJS.ProcessEnv;
  identityDb: Db;
  identityDatabaseUrl: string;
  gatewayDb: Db;
  addGateway(options?: GatewayOptions): Promise<RunningGateway & { publicUrl: string }>;
  close(): Promise<void>;
}

/**
 * A free port held by a listener of this process until `release`: the services start for
 * seconds before the gateway takes it, and a port merely found free then was sometimes taken by
 * another test's connection meanwhile (EADDRINUSE).
 */
async function reservePort(): Promise<{ port: number; release: () => Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return { port: address.port, release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export async function startSecuritySystem(label: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<SecuritySystem> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GATEWAY_DATABASE_URL: await createTestDatabase(`${label}_gateway`, { migratedFor: 'gateway' }),
    IDENTITY_DATABASE_URL: await createTestDatabase(`${label}_identity`, { migratedFor: 'identity' }),
    LEDGER_DATABASE_URL: await createTestDatabase(`${label}_ledger`, { migratedFor: 'ledger' }),
    PAYMENTS_DATABASE_URL: await createTestDatabase(`${label}_payments`, { migratedFor: 'payments' }),
    TREASURY_DATABASE_URL: await createTestDatabase(`${label}_treasury`, { migratedFor: 'treasury' }),
    AMQP_URL: await createTestVhost(label),
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    SYSTEM_API_KEY: SYSTEM_KEY,
    SECRETS_ENCRYPTION_KEY: MASTER_KEY,
    SECRETS_ENCRYPTION_KEYS_OLD: '',
    SMTP_URL: '',
    DASHBOARD_URL: '',
    HOST: '127.0.0.1',
    IDENTITY_PORT: '0',
    LEDGER_PORT: '0',
    PAYMENTS_PORT: '0',
    TREASURY_PORT: '0',
    GATEWAY_PORT: '0',
    ADMIN_PORT: '0',
    DASHBOARD_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...extraEnv,
  };
  const closables: Closable[] = [];
  const closeAll = async () => {
    for (const closable of closables.reverse()) await closable.close().catch(() => undefined);
  };
  // Treasury asks the first gateway's admin listener for request errors, so its port is known before either starts.
  const reserved = env.ADMIN_PORT === '0' ? await reservePort() : null;
  const firstAdminPort = reserved ? String(reserved.port) : (env.ADMIN_PORT as string);
  env.GATEWAY_INTERNAL_URL ??= `http://127.0.0.1:${firstAdminPort}`;
  try {
    const identity = await startIdentity(env);
    closables.push(identity);
    const ledger = await startLedger(env);
    closables.push(ledger);
    env.IDENTITY_URL = `http://127.0.0.1:${identity.port}`;
    env.LEDGER_URL = `http://127.0.0.1:${ledger.port}`;
    // Treasury first: payments' reconciliation reads treasury's records.
    const treasury = await startTreasury(env);
    closables.push(treasury);
    env.TREASURY_URL = `http://127.0.0.1:${treasury.port}`;
    const payments = await startPayments(env);
    closables.push(payments);
    env.PAYMENTS_URL = `http://127.0.0.1:${payments.port}`;
    let first = true;
    const addGateway = async (options: GatewayOptions = {}) => {
      if (first) await reserved?.release();
      const gateway = await startGateway(first ? { ...env, ADMIN_PORT: firstAdminPort } : env, options);
      first = false;
      closables.push(gateway);
      return Object.assign(gateway, { publicUrl: `http://127.0.0.1:${gateway.port}` });
    };
    const gateway = await addGateway();
    const identityDb = createDb(env.IDENTITY_DATABASE_URL as string, { poolMax: 2 });
    const gatewayDb = createDb(env.GATEWAY_DATABASE_URL as string, { poolMax: 2 });
    closables.push({ close: () => identityDb.destroy() }, { close: () => gatewayDb.destroy() });
    return {
      publicUrl: gateway.publicUrl,
      adminUrl: `http://127.0.0.1:${gateway.adminPort}`,
      env,
      identityDb,
      identityDatabaseUrl: env.IDENTITY_DATABASE_URL as string,
      gatewayDb,
      addGateway,
      close: closeAll,
    };
  } catch (error) {
    await reserved?.release();
    await closeAll();
    throw error;
  }
}
