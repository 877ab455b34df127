import fc from 'fast-check';
import { type JournalEntry, journalPageSchema, type LedgerPostV1 } from '@wallet/contracts';
import { sealStampRanges } from '../src/features/journal/journal-stamps';
import { depositCommand, type LedgerHarness, newTenantId, startLedgerHarness, transferCommand } from './support';

/**
 * Real: PostgreSQL, RabbitMQ and the ledger over HTTP, with a journal list allowed to test only
 * EXAMINE entries per request against the filters no index serves (kind, time, tenant alone,
 * accounts across tenants). Following the cursors must still give exactly the filtered journal.
 */
const EXAMINE = 3;
let ledger: LedgerHarness;
const tenant = newTenantId();
const other = newTenantId();
/** The tenant's entries, newest first, as the unfiltered list (an index walk, nothing examined) gives them. */
let journal: JournalEntry[] = [];

async function post(command: LedgerPostV1): Promise<void> {
  const result = await ledger.client.request(command);
  if (result.status !== 'posted') throw new Error(`not posted: ${JSON.stringify(result)}`);
}

/** Every page of a list, following nextCursor to its end. */
async function pages(path: string, claims: { tenantId: string | null }): Promise<JournalEntry[][]> {
  const found: JournalEntry[][] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const response = await ledger.get(cursor === null ? path : `${path}${separator}cursor=${cursor}`, claims);
    expect(response.status).toBe(200);
    const page = journalPageSchema.parse(response.body);
    found.push(page.data);
    cursor = page.nextCursor;
  } while (cursor !== null && found.length < 100);
  return found;
}

beforeAll(async () => {
  // Stamp ranges are sealed by the test's own rounds, not on a timer.
  ledger = await startLedgerHarness({
    env: { LEDGER_JOURNAL_EXAMINE_MAX: String(EXAMINE), LEDGER_JOURNAL_STAMP_SEAL_INTERVAL_MS: '3600000' },
  });
  // The tenant's one fee-less transfer is its oldest entry: every deposit after it is newer.
  await post(depositCommand({ tenantId: tenant }, 'wl_x1', '100.00'));
  await post(transferCommand({ tenantId: tenant }, 'wl_x1', 'wl_x2', '5.00'));
  for (let index = 0; index < 8; index += 1) {
    await post(depositCommand({ tenantId: index % 2 === 0 ? tenant : other }, index % 3 === 0 ? 'wl_x2' : 'wl_x1', `${index + 1}.00`));
  }
  await post(transferCommand({ tenantId: tenant }, 'wl_x2', 'wl_x1', '1.00'));
  // Time windows: what is sealed so far is found through its stamp ranges, the two entries after through the unsealed tail.
  await sealStampRanges(ledger.db);
  expect(await sealStampRanges(ledger.db)).not.toBe('0');
  await post(depositCommand({ tenantId: tenant }, 'wl_x2', '3.00'));
  await post(transferCommand({ tenantId: tenant }, 'wl_x2', 'wl_x1', '2.00'));
  journal = (await pages('/v1/journal?limit=200', { tenantId: tenant })).flat();
}, 60_000);

afterAll(async () => {
  await ledger.close();
});

it('answers a page that stops short, even empty, with a cursor, rather than testing every older entry at once', async () => {
  // Newest first: transfer, deposit, transfer, four deposits, transfer, deposit. Each request tests three of them.
  const found = await pages('/v1/journal?kind=transfer&limit=3', { tenantId: tenant });
  const transfers = journal.filter((entry) => entry.kind === 'transfer').map((entry) => entry.id);
  expect(found.map((page) => page.map((entry) => entry.id))).toEqual([[transfers[0], transfers[1]], [], [transfers[2]]]);
});

it('gives exactly the filtered journal, in order, whatever the filters and the page size', async () => {
  const stamps = journal.map((entry) => entry.createdAt);
  const filters = fc.record(
    {
      kind: fc.constantFrom('transfer', 'momo_deposit'),
      walletId: fc.constantFrom('wl_x1', 'wl_x2'),
      from: fc.constantFrom(...stamps),
      to: fc.constantFrom(...stamps),
    },
    { requiredKeys: [] },
  );
  await fc.assert(
    fc.asyncProperty(filters, fc.integer({ min: 1, max: 4 }), async (filter, limit) => {
      const query = new URLSearchParams({ ...filter, limit: String(limit) });
      const listed = (await pages(`/v1/journal?${query.toString()}`, { tenantId: tenant })).flat();
      const expected = journal.filter(
        (entry) =>
          (filter.kind === undefined || entry.kind === filter.kind) &&
          (filter.walletId === undefined || entry.lines.some((line) => line.walletId === filter.walletId)) &&
          (filter.from === undefined || entry.createdAt >= filter.from) &&
          (filter.to === undefined || entry.createdAt <= filter.to),
      );
      expect(listed.map((entry) => entry.id)).toEqual(expected.map((entry) => entry.id));
    }),
    { numRuns: 40 },
  );
});

it("the operator's list across tenants pages the same way, a tenant named without its environment being a filter too", async () => {
  const found = await pages(`/v1/system/ledger/transactions?tenantId=${tenant}&kind=transfer&limit=1`, { tenantId: null });
  expect(found.flat().map((entry) => entry.id)).toEqual(journal.filter((entry) => entry.kind === 'transfer').map((entry) => entry.id));
  expect(found.some((page) => page.length === 0)).toBe(true);
  const walletAcross = (await pages('/v1/system/ledger/transactions?walletId=wl_x2&limit=2', { tenantId: null })).flat();
  const expected = (await pages('/v1/system/ledger/transactions?limit=200', { tenantId: null }))
    .flat()
    .filter((entry) => entry.lines.some((line) => line.walletId === 'wl_x2'));
  expect(walletAcross.map((entry) => entry.id)).toEqual(expected.map((entry) => entry.id));
});
