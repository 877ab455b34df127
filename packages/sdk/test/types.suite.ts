import { ROUTES, pageQuerySchema, type RouteContract, type Session, tenantSchema } from '@wallet/contracts';
import { z } from 'zod';
import { paginate, paginateItems, type RouteInput, SDK_ROUTES, WalletClient } from '../src';

/*
 * Compile-time checks of the public types: `npx tsc -p packages/sdk/tsconfig.json` fails when
 * one breaks (jest only transpiles). The function is never run.
 */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<_Condition extends true>(): void {}

async function typeChecks(client: WalletClient): Promise<void> {
  const tenant = await client.system.tenants.get('tn_1');
  assertType<Equal<typeof tenant, z.output<typeof tenantSchema>>>();

  const page = await client.journal.list({ limit: 10, kind: 'transfer' });
  const entryId: string | undefined = page.data[0]?.id;
  // @ts-expect-error not a filter of audit events
  await client.auditEvents.list({ actor: 'x' });

  // A route of the contracts' list is wide: anything goes in, unknown comes out.
  const wide: RouteContract = ROUTES[0]!;
  const anything = await client.call(wide, { params: { id: 'x' }, body: { a: 1 } });
  assertType<Equal<typeof anything, unknown>>();

  await client.call(SDK_ROUTES.getTenant, { params: { id: 'x' } });
  // @ts-expect-error path params are required
  await client.call(SDK_ROUTES.getTenant);
  // @ts-expect-error the parameter is `id`
  await client.call(SDK_ROUTES.getTenant, { params: { tenantId: 'x' } });
  await client.call(SDK_ROUTES.ledgerReconciliation);

  const custom = {
    method: 'get',
    path: '/v1/wallets/{walletId}',
    summary: 'A wallet',
    service: 'ledger',
    surface: 'tenant',
    scope: 'wallets:read',
    query: pageQuerySchema,
    success: { status: 200, schema: z.object({ id: z.string() }) },
  } as const satisfies RouteContract;
  const input: RouteInput<typeof custom> = { params: { walletId: 'w' }, query: { limit: 5 } };
  const wallet = await client.call(custom, input);
  assertType<Equal<typeof wallet, { id: string }>>();

  for await (const journalPage of paginate(client.journal.list, { limit: 5 })) void journalPage.data[0]?.lines;
  for await (const event of paginateItems(client.auditEvents.list)) void event.action;
  // @ts-expect-error misspelt filter
  void paginate(client.journal.list, { limt: 5 });

  const key = await client.apiKeys.create({ name: 'n', scopes: ['ledger:read'], environment: 'test', authMode: 'hmac' });
  const signingSecret: string | undefined = key.signingSecret;
  const session = await client.auth.login({ email: 'ada@example.com', password: 'correct horse battery' });
  assertType<Equal<typeof session, Session>>();
  await client.requestLogs.list({ requestSignatureVerified: 'true', correlationId: 'c-1' });
  void [tenant, anything, wallet, session, entryId, signingSecret];
}

describe('public types', () => {
  it('are checked by tsc, not at run time', () => {
    expect(typeof typeChecks).toBe('function');
  });
});
