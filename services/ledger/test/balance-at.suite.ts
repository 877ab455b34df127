import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import { accountBalanceAtSchema, type LedgerCommand, newId } from '@wallet/contracts';
import { lineAtStatement } from '../src/features/accounts/balance-at-store';
import { decodeMessage, processBatch } from '../src/features/posting/posting-service';
import type { DecodedCommand } from '../src/features/posting/posting-planner';
import { depositCommand, type LedgerHarness, newTenantId, startLedgerHarness, transferCommand } from './support';

/** Real PostgreSQL and RabbitMQ, the real ledger service; commands over RabbitMQ, reads over HTTP. */
let ledger: LedgerHarness;

beforeAll(async () => {
  ledger = await startLedgerHarness();
});

afterAll(async () => {
  await ledger.close();
});

/** Every node of an EXPLAIN (FORMAT JSON) plan. */
function planNodes(node: Record<string, unknown> | undefined): Array<Record<string, unknown>> {
  if (!node) return [];
  return [node, ...((node.Plans as Array<Record<string, unknown>> | undefined) ?? []).flatMap(planNodes)];
}

interface StampedLine {
  entryId: string;
  balanceAfter: string;
  stampMs: number;
}

/** The oracle, straight from the tables: the account's lines newest first, each with its entry's stamp. */
async function linesOf(accountId: string): Promise<StampedLine[]> {
  const rows: Array<{ entry_id: string; balance_after: string; created_at: Date }> = await ledger
    .db('journal_lines as l')
    .join('journal_entries as e', 'e.seq', 'l.entry_seq')
    .join('accounts as a', 'a.num', 'l.account_num')
    .where('a.id', accountId)
    .orderBy([
      { column: 'l.entry_seq', order: 'desc' },
      { column: 'l.line_no', order: 'desc' },
    ])
    .select('e.id as entry_id', 'l.balance_after', 'e.created_at');
  return rows.map((row) => ({ entryId: row.entry_id, balanceAfter: row.balance_after, stampMs: row.created_at.getTime() }));
}

async function accountId(tenantId: string, name: string): Promise<string> {
  const row: { id: string } | undefined = await ledger.db('accounts').where({ tenant_id: tenantId, name }).first('id');
  if (!row) throw new Error(`no account ${name} for ${tenantId}`);
  return row.id;
}

function systemBalanceAt(id: string, at: string): Promise<{ status: number; body: any }> {
  return ledger.get(`/v1/system/ledger/accounts/${id}/balance?at=${encodeURIComponent(at)}`, { tenantId: null });
}

function decoded(command: LedgerCommand): DecodedCommand[] {
  const message = decodeMessage(Buffer.from(JSON.stringify(command)), undefined);
  if (message.type !== 'commands') throw new Error(message.reason);
  return message.commands.map((arrived) => arrived.command);
}

const usd = (cents: number): string => new BigNumber(cents).shiftedBy(-2).toFixed(2);
const WALLETS = ['wl_b0', 'wl_b1', 'wl_b2'];

describe('GET /v1/system/ledger/accounts/{accountId}/balance?at=', () => {
  it("equals each account's running balance (fee revenue, float, wallets) at random moments", async () => {
    const move = fc.record({
      wallet: fc.nat(WALLETS.length - 1),
      to: fc.nat(WALLETS.length - 1),
      cents: fc.integer({ min: 1, max: 90_000 }),
      feeCents: fc.integer({ min: 0, max: 500 }),
      deposit: fc.boolean(),
    });
    const burst = fc.record({ moves: fc.array(move, { minLength: 1, maxLength: 4 }), pauseMs: fc.integer({ min: 0, max: 3 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(burst, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { minLength: 8, maxLength: 16 }),
        async (bursts, picks) => {
          const tenantId = newTenantId();
          for (const { moves, pauseMs } of bursts) {
            await Promise.all(
              moves.map((each) =>
                ledger.client.request(
                  each.deposit || each.wallet === each.to
                    ? depositCommand({ tenantId }, WALLETS[each.wallet] as string, usd(each.cents))
                    : transferCommand({ tenantId }, WALLETS[each.wallet] as string, WALLETS[each.to] as string, usd(each.cents), {
                        fee: usd(each.feeCents),
                      }),
                ),
              ),
            );
            await new Promise((resolve) => setTimeout(resolve, pauseMs));
          }
          const ids = await ledger.db('accounts').where({ tenant_id: tenantId }).pluck('id');
          for (const id of ids as string[]) {
            const lines = await linesOf(id);
            const candidates = [...lines.flatMap((line) => [line.stampMs - 1, line.stampMs, line.stampMs + 1]), 0, Date.now() + 3_600_000];
            for (const pick of picks.slice(0, 5)) {
              const atMs = candidates[pick % candidates.length] as number;
              const at = new Date(atMs).toISOString();
              const answer = await systemBalanceAt(id, at);
              expect(answer.status).toBe(200);
              const line = lines.find((candidate) => candidate.stampMs <= atMs);
              const parsed = accountBalanceAtSchema.parse(answer.body);
              expect({ ...parsed, balance: new BigNumber(parsed.balance).toFixed() }).toEqual({
                accountId: id,
                currencyCode: 'USD',
                balance: new BigNumber(line?.balanceAfter ?? 0).toFixed(),
                at,
                journalEntryId: line?.entryId ?? null,
              });
            }
          }
        },
      ),
      { numRuns: 8 },
    );
  });

  it('answers 404 ACCOUNT_NOT_FOUND for an unknown account, 400 for a malformed moment, and refuses tenant tokens', async () => {
    const tenantId = newTenantId();
    await ledger.client.request(depositCommand({ tenantId }, 'wl_edge', '1.00'));
    const float = await accountId(tenantId, 'momo-float:mtn');
    const unknown = await systemBalanceAt('acc_00000000000000000000000000', '2030-01-01T00:00:00Z');
    expect(`${unknown.status} ${unknown.body.error.code}`).toBe('404 ACCOUNT_NOT_FOUND');
    const malformed = await systemBalanceAt(float, '2030-01-01 00:00');
    expect(`${malformed.status} ${malformed.body.error.code}`).toBe('400 VALIDATION_ERROR');
    const tenant = await ledger.get(`/v1/system/ledger/accounts/${float}/balance?at=2030-01-01T00:00:00Z`, { tenantId });
    expect(`${tenant.status} ${tenant.body.error.code}`).toBe('403 INSUFFICIENT_SCOPE');
    // A debit-normal system account: its balance is in its own normal direction.
    expect((await systemBalanceAt(float, '9999-01-01T00:00:00Z')).body).toMatchObject({
      accountId: float,
      balance: '1.00',
      currencyCode: 'USD',
    });
  });
});

describe('GET /v1/ledger/wallets/{walletId}/entries?createdFrom=&createdTo=', () => {
  /** Every line of a wallet's statement in a range, following the cursors. */
  async function statement(tenantId: string, walletId: string, range: Record<string, string>): Promise<string[]> {
    const entries: string[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ ...range, limit: '2', ...(cursor ? { cursor } : {}) });
      const answer = await ledger.get(`/v1/ledger/wallets/${walletId}/entries?${query.toString()}`, { tenantId, scopes: ['journal:read'] });
      expect(answer.status).toBe(200);
      entries.push(...(answer.body.data as Array<{ journalEntryId: string }>).map((line) => line.journalEntryId));
      cursor = answer.body.nextCursor as string | null;
    } while (cursor !== null);
    return entries;
  }

  it('holds exactly the lines stamped from createdFrom (inclusive) to createdTo (exclusive), newest first', async () => {
    const tenantId = newTenantId();
    for (const [index, second] of [0, 0, 1, 2, 2, 3, 5].entries())
      await processBatch(ledger.db, decoded(depositCommand({ tenantId }, 'wl_range', usd(100 + index))), {
        now: new Date(Date.UTC(2031, 5, 1, 0, 0, second)),
      });
    const account = await accountId(tenantId, 'wallet:owner-wl_range');
    const lines = await linesOf(account);
    const instants = [...new Set(lines.map((line) => line.stampMs))].flatMap((ms) => [ms - 1, ms, ms + 1]);
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.constantFrom(...instants), { nil: undefined }),
        fc.option(fc.constantFrom(...instants), { nil: undefined }),
        async (fromMs, toMs) => {
          const range: Record<string, string> = {};
          if (fromMs !== undefined) range.createdFrom = new Date(fromMs).toISOString();
          if (toMs !== undefined) range.createdTo = new Date(toMs).toISOString();
          const expected = lines
            .filter((line) => (fromMs === undefined || line.stampMs >= fromMs) && (toMs === undefined || line.stampMs < toMs))
            .map((line) => line.entryId);
          expect(await statement(tenantId, 'wl_range', range)).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('stamps along an account', () => {
  it('never go back down its lines, even from a batch whose clock is behind; other accounts keep their own clock', async () => {
    const tenantId = newTenantId();
    const otherTenantId = newTenantId();
    const ahead = new Date('2031-01-01T00:00:10.000Z');
    const behind = new Date('2031-01-01T00:00:00.000Z');
    await processBatch(ledger.db, decoded(depositCommand({ tenantId }, 'wl_clock', '1.00')), { now: ahead });
    await processBatch(ledger.db, decoded(depositCommand({ tenantId }, 'wl_clock', '2.00')), { now: behind });
    await processBatch(ledger.db, decoded(depositCommand({ tenantId: otherTenantId }, 'wl_clock', '4.00')), { now: behind });

    const statement = await ledger.get('/v1/ledger/wallets/wl_clock/entries', { tenantId });
    expect(statement.body.data.map((line: { createdAt: string; balanceAfter: string }) => [line.createdAt, line.balanceAfter])).toEqual([
      ['2031-01-01T00:00:10.000Z', '3.00'],
      ['2031-01-01T00:00:10.000Z', '1.00'],
    ]);
    const other = await ledger.get('/v1/ledger/wallets/wl_clock/entries', { tenantId: otherTenantId });
    expect(other.body.data.map((line: { createdAt: string }) => line.createdAt)).toEqual(['2031-01-01T00:00:00.000Z']);

    const wallet = await accountId(tenantId, 'wallet:owner-wl_clock');
    expect((await systemBalanceAt(wallet, '2031-01-01T00:00:05Z')).body).toMatchObject({ balance: '0.00', journalEntryId: null });
    expect((await systemBalanceAt(wallet, '2031-01-01T00:00:10Z')).body).toMatchObject({
      balance: '3.00',
      journalEntryId: statement.body.data[0].journalEntryId,
    });
  });
});

describe('the lookup on a long history', () => {
  const LINES = 100_000;

  it('is an index bisection: a few hundred buffers at most, no scan, and exact at any moment', async () => {
    const tenantId = newTenantId();
    const id = newId('account');
    const base = Date.parse('2030-06-01T00:00:00.000Z');
    await ledger
      .db('accounts')
      .insert({ id, tenant_id: tenantId, environment: 'test', currency_code: 'USD', name: 'revenue:synthetic', normal_side: 'CR' });
    // Entry i is stamped base + 2i ms and leaves the balance at i; odd milliseconds fall between entries.
    await ledger.db.raw(
      `WITH e AS (
         INSERT INTO journal_entries (id, tenant_id, environment, kind, reference_type, reference_id, command_key, created_at)
         SELECT ? || i, ?, 'test', 'adjustment', 'synthetic', 'r' || i, md5(? || i)::uuid, ?::timestamptz + (2 * i) * interval '1 millisecond'
           FROM generate_series(1, ?::int) AS i
         RETURNING id, seq
       )
       INSERT INTO journal_lines (entry_seq, line_no, account_num, direction, amount, balance_after)
       SELECT e.seq, 1, (SELECT num FROM accounts WHERE id = ?), 'CR', 1, substr(e.id, length(?) + 1)::numeric FROM e`,
      [`je_${tenantId}_`, tenantId, `cmd-${tenantId}-`, new Date(base).toISOString(), LINES, id, `je_${tenantId}_`],
    );
    await ledger.db.raw('ANALYZE journal_lines, journal_entries');

    for (const offsetMs of [-1, 0, 2, 3, 77_777, 2 * LINES - 1, 2 * LINES, 2 * LINES + 5]) {
      const at = new Date(base + offsetMs).toISOString();
      const entry = Math.min(LINES, Math.floor(offsetMs / 2));
      const answer = await systemBalanceAt(id, at);
      expect(answer.body).toEqual({
        accountId: id,
        currencyCode: 'USD',
        balance: entry >= 1 ? `${entry}.00` : '0.00',
        at,
        journalEntryId: entry >= 1 ? `je_${tenantId}_${entry}` : null,
      });

      const { sql, bindings } = lineAtStatement(id, at);
      const explained: { rows: Array<{ 'QUERY PLAN': Array<{ Plan: Record<string, unknown> }> }> } = await ledger.db.raw(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
        bindings,
      );
      const plan = (explained.rows[0]?.['QUERY PLAN'][0]?.Plan ?? {}) as { 'Shared Hit Blocks'?: number; 'Shared Read Blocks'?: number };
      const text = JSON.stringify(explained.rows);
      // No scan of the journal, and no merge join walking it (the account's row may be found either way in a table this small).
      expect(
        planNodes(explained.rows[0]?.['QUERY PLAN'][0]?.Plan).filter(
          (node) => /^journal_/.test(String(node['Relation Name'])) && /Seq Scan|Bitmap/.test(String(node['Node Type'])),
        ),
      ).toEqual([]);
      expect(text).not.toMatch(/Merge Join|Bitmap Index Scan/);
      // Summing the history would read every one of the account's lines: thousands of pages here.
      expect((plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0)).toBeLessThan(600);
    }
  });
});
