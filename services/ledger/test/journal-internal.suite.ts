import { journalEntryLookupSchema } from '@wallet/contracts';
import { signInternalToken } from '@wallet/kit';
import { depositCommand, INTERNAL_SECRET, type LedgerHarness, newTenantId, startLedgerHarness } from './support';

/** Real: PostgreSQL, RabbitMQ and the ledger service in-process, called over HTTP as payments calls it. */
let ledger: LedgerHarness;

beforeAll(async () => {
  ledger = await startLedgerHarness();
});

afterAll(async () => {
  await ledger?.close();
});

function token(surface: 'system' | 'tenant', tenantId: string | null = null): string {
  return signInternalToken(INTERNAL_SECRET, {
    surface,
    tenantId,
    environment: tenantId ? 'test' : null,
    keyId: null,
    scopes: ['tenant:manage'],
    actor: null,
  });
}

async function call(
  method: 'GET' | 'POST',
  path: string,
  options: { body?: unknown; token?: string } = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${ledger.service.port}${path}`, {
    method,
    headers: {
      'x-internal-token': options.token ?? token('system'),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

async function post(command: ReturnType<typeof depositCommand>): Promise<string> {
  const result = await ledger.client.request(command);
  if (result.status !== 'posted' || !result.journalEntryId) throw new Error(`not posted: ${JSON.stringify(result)}`);
  return result.journalEntryId;
}

describe('POST /internal/v1/journal/entries/lookup', () => {
  it('answers the entries with their reference and lines, within the scope when one is given', async () => {
    const tenantA = newTenantId();
    const tenantB = newTenantId();
    const deposit = depositCommand({ tenantId: tenantA }, 'wl_lookup_a', '12.50');
    const ofA = await post(deposit);
    const ofB = await post(depositCommand({ tenantId: tenantB }, 'wl_lookup_b', '3.00'));

    const everywhere = journalEntryLookupSchema.parse(
      (await call('POST', '/internal/v1/journal/entries/lookup', { body: { ids: [ofA, ofB, 'je_MISSING'] } })).body,
    );
    expect(everywhere.data.map((entry) => entry.id).sort()).toEqual([ofA, ofB].sort());
    expect(everywhere.data.find((entry) => entry.id === ofA)).toMatchObject({
      tenantId: tenantA,
      environment: 'test',
      kind: 'momo_deposit',
      reference: deposit.reference,
      lines: [
        expect.objectContaining({ accountName: 'momo-float:mtn', direction: 'DR', amount: '12.50', currencyCode: 'USD', walletId: null }),
        expect.objectContaining({ accountName: 'wallet:owner-wl_lookup_a', direction: 'CR', amount: '12.50', walletId: 'wl_lookup_a' }),
      ],
    });

    const scoped = journalEntryLookupSchema.parse(
      (await call('POST', '/internal/v1/journal/entries/lookup', { body: { ids: [ofA, ofB], tenantId: tenantA, environment: 'test' } }))
        .body,
    );
    expect(scoped.data.map((entry) => entry.id)).toEqual([ofA]);
    expect(
      (await call('POST', '/internal/v1/journal/entries/lookup', { body: { ids: [ofA], tenantId: tenantA, environment: 'live' } })).body
        .data,
    ).toEqual([]);
  });

  it('refuses half a scope, too many ids and anything but a system token', async () => {
    expect((await call('POST', '/internal/v1/journal/entries/lookup', { body: { ids: ['je_1'], tenantId: 'tn_1' } })).body.error.code).toBe(
      'VALIDATION_ERROR',
    );
    expect(
      (
        await call('POST', '/internal/v1/journal/entries/lookup', {
          body: { ids: Array.from({ length: 1001 }, (_, index) => `je_${index}`) },
        })
      ).body.error.code,
    ).toBe('VALIDATION_ERROR');
    const asTenant = await call('POST', '/internal/v1/journal/entries/lookup', {
      body: { ids: ['je_1'] },
      token: token('tenant', newTenantId()),
    });
    expect(`${asTenant.status} ${asTenant.body.error.code}`).toBe('403 INSUFFICIENT_SCOPE');
  });
});
