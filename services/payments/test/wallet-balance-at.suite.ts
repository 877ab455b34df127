import { randomUUID } from 'node:crypto';
import BigNumber from 'bignumber.js';
import fc from 'fast-check';
import {
  errorBodySchema,
  type LedgerPostV1,
  newId,
  statementPageSchema,
  walletBalanceAtSchema,
  walletSchema,
  type Wallet,
} from '@wallet/contracts';
import {
  depositCommand,
  type HttpResult,
  type LedgerBackedHarness,
  newTenantId,
  startLedgerBackedHarness,
  tenantToken,
  transferCommand,
} from './support';

/**
 * Real: PostgreSQL, RabbitMQ, payments over HTTP and the ledger beside it. Money moves by
 * commands to the ledger over RabbitMQ; the statement (`/v1/wallets/{id}/entries`) is the
 * oracle for the balance as of a moment.
 */
let harness: LedgerBackedHarness;

beforeAll(async () => {
  harness = await startLedgerBackedHarness({ PAYMENTS_TENANT_WAIT_MS: '1000' });
});

afterAll(async () => {
  await harness?.close();
});

interface Caller {
  tenantId: string;
  environment: 'test' | 'live';
}

type StatementLine = ReturnType<typeof statementPageSchema.parse>['data'][number];

function call(caller: Caller, path: string): Promise<HttpResult> {
  return harness.request('GET', path, { token: tenantToken(caller.tenantId, { environment: caller.environment }) });
}

function balanceAt(caller: Caller, walletId: string, at: string): Promise<HttpResult> {
  return call(caller, `/v1/wallets/${walletId}/balance?at=${encodeURIComponent(at)}`);
}

function expectError(result: HttpResult, status: number, code: string): void {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
  errorBodySchema.parse(result.body);
}

async function newCaller(environment: 'test' | 'live' = 'live'): Promise<Caller> {
  const tenantId = newTenantId();
  await harness.publishTenant(tenantId, { allowedCurrencies: ['KES'] });
  return { tenantId, environment };
}

async function createWallet(caller: Caller): Promise<Wallet> {
  const created = await harness.request('POST', '/v1/wallets', {
    token: tenantToken(caller.tenantId, { environment: caller.environment }),
    body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode: 'KES' },
  });
  expect(created.status).toBe(201);
  return walletSchema.parse(created.body);
}

/** The whole statement, newest first, page by page. */
async function statementOf(caller: Caller, walletId: string): Promise<StatementLine[]> {
  const lines: StatementLine[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? 'limit=200' : `limit=200&cursor=${cursor}`;
    const page = statementPageSchema.parse((await call(caller, `/v1/wallets/${walletId}/entries?${query}`)).body);
    lines.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return lines;
}

/** What the statement says: the balance after its newest line stamped at or before the moment. */
function expectedAt(statement: StatementLine[], atMs: number): { balance: string; journalEntryId: string | null } {
  const line = statement.find((candidate) => Date.parse(candidate.createdAt) <= atMs);
  return line ? { balance: line.balanceAfter, journalEntryId: line.journalEntryId } : { balance: '0.00', journalEntryId: null };
}

/** The same instant written with another UTC offset (minutes east), as a client elsewhere would. */
function isoWithOffset(ms: number, offsetMinutes: number): string {
  if (offsetMinutes === 0) return new Date(ms).toISOString();
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, -1);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const magnitude = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(magnitude / 60)).padStart(2, '0')}:${String(magnitude % 60).padStart(2, '0')}`;
}

const kes = (cents: number): string => new BigNumber(cents).shiftedBy(-2).toFixed(2);

type Move = { kind: 'deposit'; cents: number } | { kind: 'send' | 'return'; cents: number };
const move: fc.Arbitrary<Move> = fc.oneof(
  fc.record({ kind: fc.constant('deposit' as const), cents: fc.integer({ min: 1, max: 100_000 }) }),
  fc.record({ kind: fc.constantFrom('send' as const, 'return' as const), cents: fc.integer({ min: 1, max: 60_000 }) }),
);
/** Moves sent together land in one ledger batch (one stamp) or a few; a pause between bursts separates stamps. */
const burst = fc.record({ moves: fc.array(move, { minLength: 1, maxLength: 3 }), pauseMs: fc.integer({ min: 0, max: 4 }) });
const moment = fc.record({ pick: fc.nat(), offsetMinutes: fc.constantFrom(0, 180, -330, 345, -720) });

describe('GET /v1/wallets/{id}/balance?at=', () => {
  it("equals the statement's running balance at random moments", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(burst, { minLength: 1, maxLength: 6 }),
        fc.array(moment, { minLength: 6, maxLength: 14 }),
        async (bursts, moments) => {
          const caller = await newCaller();
          const [a, b] = [await createWallet(caller), await createWallet(caller)] as [Wallet, Wallet];
          for (const { moves, pauseMs } of bursts) {
            const commands: LedgerPostV1[] = moves.map((each) =>
              each.kind === 'deposit'
                ? depositCommand(a, kes(each.cents))
                : each.kind === 'send'
                  ? transferCommand(a, b, kes(each.cents))
                  : transferCommand(b, a, kes(each.cents)),
            );
            // Some transfers are refused for want of funds: they leave no line, as they should.
            await Promise.all(commands.map((command) => harness.ledger.commands.request(command)));
            await new Promise((resolve) => setTimeout(resolve, pauseMs));
          }
          for (const wallet of [a, b]) {
            const statement = await statementOf(caller, wallet.id);
            const stamps = statement.map((line) => Date.parse(line.createdAt));
            // Every stamp, a millisecond either side, and moments before the first line and after the last.
            const candidates = [
              ...stamps.flatMap((stamp) => [stamp - 1, stamp, stamp + 1]),
              Date.parse(a.createdAt) - 60_000,
              Date.now() + 86_400_000,
            ];
            for (const { pick, offsetMinutes } of moments) {
              const atMs = candidates[pick % candidates.length] as number;
              const answer = await balanceAt(caller, wallet.id, isoWithOffset(atMs, offsetMinutes));
              expect(answer.status).toBe(200);
              expect(walletBalanceAtSchema.parse(answer.body)).toEqual({
                walletId: wallet.id,
                currencyCode: 'KES',
                at: new Date(atMs).toISOString(),
                ...expectedAt(statement, atMs),
              });
            }
          }
        },
      ),
      { numRuns: 10 },
    );
  });

  it('answers 0 with no entry before the first line, the balance now for a future moment, and 0 for a wallet with no lines', async () => {
    const caller = await newCaller();
    const wallet = await createWallet(caller);
    const idle = await createWallet(caller);
    await harness.ledger.commands.request(depositCommand(wallet, '12.34'));
    await harness.ledger.commands.request(depositCommand(wallet, '0.66'));
    const [newest, first] = await statementOf(caller, wallet.id);
    if (!newest || !first) throw new Error('two lines expected');

    const before = await balanceAt(caller, wallet.id, new Date(Date.parse(first.createdAt) - 1).toISOString());
    expect(before.body).toMatchObject({ balance: '0.00', journalEntryId: null });
    // Inclusive: a moment exactly on the first line's stamp sees it.
    const on = await balanceAt(caller, wallet.id, first.createdAt);
    expect(on.body).toMatchObject(expectedAt([newest, first], Date.parse(first.createdAt)));
    expect(on.body.journalEntryId).not.toBeNull();
    const future = await balanceAt(caller, wallet.id, '9999-12-30T23:59:59.999Z');
    expect(future.body).toEqual({
      walletId: wallet.id,
      currencyCode: 'KES',
      balance: '13.00',
      at: '9999-12-30T23:59:59.999Z',
      journalEntryId: newest.journalEntryId,
    });
    // Digits beyond milliseconds are cut off, never rounded up into the next millisecond.
    const fine = await balanceAt(caller, wallet.id, `${new Date(Date.parse(first.createdAt) - 1).toISOString().slice(0, -1)}999999Z`);
    expect(fine.body).toMatchObject({ balance: '0.00', journalEntryId: null, at: new Date(Date.parse(first.createdAt) - 1).toISOString() });

    expect((await balanceAt(caller, idle.id, '9999-12-30T23:59:59.999Z')).body).toMatchObject({ balance: '0.00', journalEntryId: null });
    // No ledger account at all yet (the opening command not taken): no line, so 0 as well.
    const unopened = newId('wallet');
    await harness.db('wallets').insert({
      id: unopened,
      tenant_id: caller.tenantId,
      environment: caller.environment,
      owner_type: 'user',
      owner_id: 'unopened',
      currency_code: 'KES',
    });
    expect((await balanceAt(caller, unopened, '2030-01-01T00:00:00Z')).body).toEqual({
      walletId: unopened,
      currencyCode: 'KES',
      balance: '0.00',
      at: '2030-01-01T00:00:00.000Z',
      journalEntryId: null,
    });
  });

  it('refuses a malformed, zone-less or missing moment with 400 VALIDATION_ERROR', async () => {
    const caller = await newCaller();
    const wallet = await createWallet(caller);
    for (const at of [
      'yesterday',
      '2026-11-25T10:00:00',
      '2026-11-25',
      '2026-02-30T00:00:00Z',
      '2026-11-25T10:00:00+0300',
      '0000-06-01T00:00:00Z',
      '',
    ]) {
      expectError(await balanceAt(caller, wallet.id, at), 400, 'VALIDATION_ERROR');
    }
    expectError(await call(caller, `/v1/wallets/${wallet.id}/balance`), 400, 'VALIDATION_ERROR');
    expectError(
      await call(caller, `/v1/wallets/${wallet.id}/balance?at=2026-01-01T00:00:00Z&at=2026-01-02T00:00:00Z`),
      400,
      'VALIDATION_ERROR',
    );
  });

  it("answers 404 WALLET_NOT_FOUND for another tenant's wallet and from the other environment", async () => {
    const owner = await newCaller();
    const wallet = await createWallet(owner);
    await harness.ledger.commands.request(depositCommand(wallet, '5.00'));
    for (const stranger of [await newCaller(), { tenantId: owner.tenantId, environment: 'test' as const }]) {
      expectError(await balanceAt(stranger, wallet.id, '9999-01-01T00:00:00Z'), 404, 'WALLET_NOT_FOUND');
    }
    expect((await balanceAt(owner, wallet.id, '9999-01-01T00:00:00Z')).body).toMatchObject({ balance: '5.00' });
  });
});
