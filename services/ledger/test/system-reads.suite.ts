import BigNumber from 'bignumber.js';
import { errorBodySchema, type JournalEntry, journalEntrySchema, journalPageSchema, type LedgerPostV1 } from '@wallet/contracts';
import { depositCommand, type LedgerHarness, newTenantId, startLedgerHarness, transferCommand } from './support';

/**
 * Real: PostgreSQL, RabbitMQ and the ledger service over HTTP, on a database of this file alone,
 * so the operator's cross-tenant list holds exactly the entries posted here.
 */
let ledger: LedgerHarness;
const tenantA = newTenantId();
const tenantB = newTenantId();
/** Posted in this order, one at a time: newest first means the reverse. */
const posted: Array<{ command: LedgerPostV1; journalEntryId: string }> = [];

async function post(command: LedgerPostV1): Promise<void> {
  const result = await ledger.client.request(command);
  if (result.status !== 'posted' || !result.journalEntryId) throw new Error(`not posted: ${JSON.stringify(result)}`);
  posted.push({ command, journalEntryId: result.journalEntryId });
}

const system = { tenantId: null };

async function list(query: string): Promise<JournalEntry[]> {
  const response = await ledger.get(`/v1/system/ledger/transactions${query}`, system);
  expect(response.status).toBe(200);
  return journalPageSchema.parse(response.body).data;
}

function idsNewestFirst(filter: (command: LedgerPostV1) => boolean): string[] {
  return posted
    .filter(({ command }) => filter(command))
    .map(({ journalEntryId }) => journalEntryId)
    .reverse();
}

beforeAll(async () => {
  ledger = await startLedgerHarness();
  await post(depositCommand({ tenantId: tenantA }, 'wl_sys_a1', '50.00'));
  await post(depositCommand({ tenantId: tenantA, environment: 'live' }, 'wl_sys_a_live', '70.00'));
  await post(depositCommand({ tenantId: tenantB }, 'wl_sys_b1', '30.00', { currencyCode: 'KES' }));
  await post(transferCommand({ tenantId: tenantB }, 'wl_sys_b1', 'wl_sysb2', '10.00', { fee: '0.50', currencyCode: 'KES' }));
  await post(transferCommand({ tenantId: tenantA }, 'wl_sys_a1', 'wl_sys_a2', '5.00'));
});

afterAll(async () => {
  await ledger?.close();
});

describe('GET /v1/system/ledger/transactions', () => {
  it('lists the entries of every tenant and environment, newest first', async () => {
    expect((await list('?limit=200')).map((entry) => entry.id)).toEqual(idsNewestFirst(() => true));
  });

  it.each([
    ['tenantId', () => `?tenantId=${tenantA}`, (command: LedgerPostV1) => command.tenantId === tenantA],
    [
      'tenantId and environment',
      () => `?tenantId=${tenantA}&environment=live`,
      (command: LedgerPostV1) => command.tenantId === tenantA && command.environment === 'live',
    ],
    ['environment alone', () => '?environment=test', (command: LedgerPostV1) => command.environment === 'test'],
    ['kind', () => '?kind=transfer', (command: LedgerPostV1) => command.kind === 'transfer'],
    ['walletId', () => '?walletId=wl_sysb2', (command: LedgerPostV1) => command.lines.some((line) => line.walletId === 'wl_sysb2')],
    [
      'accountName and tenantId',
      () => `?accountName=revenue:fees&tenantId=${tenantB}`,
      (command: LedgerPostV1) => command.lines.some((line) => line.accountName === 'revenue:fees'),
    ],
  ])('filters by %s', async (_name, query, keep) => {
    const expected = idsNewestFirst(keep);
    expect(expected.length).toBeGreaterThan(0);
    expect((await list(query())).map((entry) => entry.id)).toEqual(expected);
  });

  it('finds the entry of one business record by its reference', async () => {
    const target = posted[3] as (typeof posted)[number];
    const found = await list(`?referenceType=${target.command.reference.type}&referenceId=${target.command.reference.id}`);
    expect(found.map((entry) => entry.id)).toEqual([target.journalEntryId]);
    expect(await list(`?referenceType=deposit&referenceId=${target.command.reference.id}`)).toEqual([]);
  });

  it('pages with an opaque cursor, every entry exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await ledger.get(
        `/v1/system/ledger/transactions?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        system,
      );
      const page = journalPageSchema.parse(response.body);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((entry) => entry.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(idsNewestFirst(() => true));
  });

  it('pages within a filter', async () => {
    const first = await ledger.get(`/v1/system/ledger/transactions?tenantId=${tenantA}&limit=2`, system);
    const second = await ledger.get(
      `/v1/system/ledger/transactions?tenantId=${tenantA}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`,
      system,
    );
    expect([...first.body.data, ...second.body.data].map((entry: JournalEntry) => entry.id)).toEqual(
      idsNewestFirst((command) => command.tenantId === tenantA),
    );
    expect(second.body.nextCursor).toBeNull();
  });

  it('refuses a malformed cursor and malformed filters', async () => {
    const cursor = await ledger.get('/v1/system/ledger/transactions?cursor=not-a-cursor', system);
    expect(`${cursor.status} ${cursor.body.error.code}`).toBe('400 INVALID_CURSOR');
    for (const query of ['?environment=staging', '?kind=nothing', '?limit=0', '?limit=201', '?tenantId=']) {
      const response = await ledger.get(`/v1/system/ledger/transactions${query}`, system);
      expect(`${query} ${response.status} ${response.body.error.code}`).toBe(`${query} 400 VALIDATION_ERROR`);
    }
  });

  it('refuses tenant tokens', async () => {
    const response = await ledger.get('/v1/system/ledger/transactions', { tenantId: tenantA, scopes: ['tenant:manage'] });
    expect(response.status).toBe(403);
    expect(errorBodySchema.parse(response.body).error.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /v1/system/ledger/transactions/{journalEntryId}', () => {
  it("shows any tenant's entry with its lines, balanced per currency", async () => {
    const target = posted[3] as (typeof posted)[number];
    const response = await ledger.get(`/v1/system/ledger/transactions/${target.journalEntryId}`, system);
    expect(response.status).toBe(200);
    const entry = journalEntrySchema.parse(response.body);
    expect(entry).toMatchObject({
      id: target.journalEntryId,
      tenantId: tenantB,
      environment: 'test',
      kind: 'transfer',
      reference: target.command.reference,
      reversesEntryId: null,
    });
    expect(entry.lines.map((line) => `${line.direction} ${line.accountName} ${line.amount} ${line.currencyCode}`)).toEqual(
      target.command.lines.map(
        (line) => `${line.direction} ${line.accountName} ${new BigNumber(line.amount).toFixed(2)} ${line.currencyCode}`,
      ),
    );
    const sum = (direction: 'DR' | 'CR') =>
      entry.lines.filter((line) => line.direction === direction).reduce((total, line) => total.plus(line.amount), new BigNumber(0));
    expect(sum('DR').toFixed()).toBe(sum('CR').toFixed());
    expect(sum('DR').toFixed(2)).toBe('10.50');
  });

  it('is the same entry the tenant itself reads', async () => {
    const target = posted[1] as (typeof posted)[number];
    const asOperator = await ledger.get(`/v1/system/ledger/transactions/${target.journalEntryId}`, system);
    const asTenant = await ledger.get(`/v1/journal/${target.journalEntryId}`, { tenantId: tenantA, environment: 'live' });
    expect(asOperator.body).toEqual(asTenant.body);
  });

  it('answers 404 JOURNAL_ENTRY_NOT_FOUND for an unknown entry', async () => {
    const response = await ledger.get('/v1/system/ledger/transactions/je_00000000000000000000000000', system);
    expect(`${response.status} ${response.body.error.code}`).toBe('404 JOURNAL_ENTRY_NOT_FOUND');
  });

  it('refuses tenant tokens, even for their own entry', async () => {
    const target = posted[0] as (typeof posted)[number];
    const response = await ledger.get(`/v1/system/ledger/transactions/${target.journalEntryId}`, {
      tenantId: tenantA,
      scopes: ['tenant:manage'],
    });
    expect(`${response.status} ${response.body.error.code}`).toBe('403 INSUFFICIENT_SCOPE');
  });
});
