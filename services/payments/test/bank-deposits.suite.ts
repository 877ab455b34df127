import { randomUUID } from 'node:crypto';
import { bankStatementImportSchema, type Deposit, depositSchema, statementLinePageSchema, walletSchema } from '@wallet/contracts';
import { waitFor } from '@wallet/kit/testing';
import { type IdentityPeer, startIdentity } from './deposits-support';
import { type HttpResult, type LedgerBackedHarness, startLedgerBackedHarness, tenantToken } from './support';

/**
 * Real: PostgreSQL, RabbitMQ, payments over HTTP, the ledger beside it, and identity, which
 * answers for the team members who verify slips.
 */
let harness: LedgerBackedHarness;
let identity: IdentityPeer;

beforeAll(async () => {
  identity = await startIdentity();
  harness = await startLedgerBackedHarness({
    IDENTITY_URL: identity.url,
    PAYMENTS_TENANT_WAIT_MS: '1000',
    PAYMENTS_DEPOSIT_REPLY_WAIT_MS: '3000',
  });
});

afterAll(async () => {
  await harness?.close();
  await identity?.close();
});

/** A tenant in identity, published to payments and the ledger, with an operator: a member whose role grants deposits:verify. */
async function newTenant(): Promise<{ tenantId: string; operator: string }> {
  const config = { allowedCurrencies: ['USD', 'KES'], maxTransactionAmount: '100000' };
  const tenantId = await identity.createTenant(config);
  await harness.publishTenant(tenantId, config);
  return { tenantId, operator: await identity.addMember(tenantId, 'operator') };
}

async function createWallet(tenantId: string, currencyCode = 'USD') {
  const created = await harness.request('POST', '/v1/wallets', {
    token: tenantToken(tenantId),
    body: { ownerType: 'user', ownerId: `user-${randomUUID().slice(0, 8)}`, currencyCode },
  });
  expect(created.status).toBe(201);
  return walletSchema.parse(created.body);
}

function expectError(result: HttpResult, status: number, code: string) {
  expect(`${result.status} ${result.body?.error?.code}`).toBe(`${status} ${code}`);
}

function submitSlip(tenantId: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  return harness.request('POST', '/v1/deposits/bank-slips', { token: tenantToken(tenantId), body, ...(headers ? { headers } : {}) });
}

async function postCsv(tenantId: string, query: string, csv: string | Buffer): Promise<HttpResult> {
  const response = await fetch(`http://127.0.0.1:${harness.service.port}/v1/bank-statements?${query}`, {
    method: 'POST',
    headers: { 'x-internal-token': tenantToken(tenantId), 'content-type': 'text/csv; charset=utf-8' },
    body: csv,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

/** `headerActor`: the actor the caller's key declares (its X-Service-Actor headers). */
function verify(tenantId: string, depositId: string, actorId: string, headerActor?: string) {
  const token = tenantToken(tenantId, { actor: headerActor === undefined ? null : { type: 'member', id: headerActor } });
  return harness.request('POST', `/v1/deposits/${depositId}/verify`, { token, body: { actorId } });
}

async function balanceOf(tenantId: string, walletId: string): Promise<string> {
  return walletSchema.parse((await harness.request('GET', `/v1/wallets/${walletId}`, { token: tenantToken(tenantId) })).body).balance;
}

async function entryLines(depositId: string): Promise<string[] | undefined> {
  const entry = await harness.ledger
    .db('journal_entries')
    .where({ reference_type: 'deposit', reference_id: depositId })
    .first(['id', 'kind']);
  if (!entry) return undefined;
  const rows: Array<{ name: string; direction: string; amount: string }> = await harness.ledger
    .db('journal_lines')
    .join('accounts', 'accounts.num', 'journal_lines.account_num')
    .where({ entry_seq: harness.ledger.db('journal_entries').where({ id: entry.id }).select('seq') })
    .orderBy('line_no')
    .select(['accounts.name as name', 'journal_lines.direction as direction', 'journal_lines.amount as amount']);
  return [entry.kind, ...rows.map((row) => `${row.direction} ${row.name} ${Number(row.amount).toFixed(2)}`)];
}

describe('bank slips, statements and verification', () => {
  it('records a slip as a pending bank_slip deposit with no ledger entry', async () => {
    const { tenantId } = await newTenant();
    const wallet = await createWallet(tenantId);
    const created = await submitSlip(
      tenantId,
      { walletId: wallet.id, amount: 250.5, currencyCode: 'USD', bankCode: 'stanbic', slipReference: 'SLIP-1', depositorName: 'Jane' },
      { 'Idempotency-Key': `slip-${randomUUID()}` },
    );
    expect(created.status).toBe(201);
    expect(depositSchema.parse(created.body)).toMatchObject({
      source: 'bank_slip',
      status: 'pending',
      amount: '250.50',
      bankCode: 'stanbic',
      slipReference: 'SLIP-1',
      externalRef: 'SLIP-1',
      journalEntryId: null,
    });
    expect(await entryLines(created.body.id)).toBeUndefined();
    // No ledger command: only its deposit.pending event is in the outbox.
    const sent = await harness.db('outbox').where('payload', 'like', `%${created.body.id}%`).pluck('type');
    expect(sent).toEqual(['platform.events.v1']);
    expectError(
      await submitSlip(tenantId, { walletId: wallet.id, amount: '1.001', currencyCode: 'USD', bankCode: 'stanbic', slipReference: 'X' }),
      400,
      'INVALID_AMOUNT',
    );
    expectError(
      await submitSlip(tenantId, { walletId: wallet.id, amount: '1', currencyCode: 'KES', bankCode: 'stanbic', slipReference: 'X' }),
      422,
      'CURRENCY_MISMATCH',
    );
    expectError(
      await submitSlip(tenantId, { walletId: 'wl_NOPE', amount: '1', currencyCode: 'USD', bankCode: 'stanbic', slipReference: 'X' }),
      404,
      'WALLET_NOT_FOUND',
    );
  });

  it('imports statements as CSV and JSON, counting lines already imported as duplicates', async () => {
    const { tenantId } = await newTenant();
    const csv =
      'date,reference,amount,description\r\n2026-11-20,REF-1,100.00,"Cash, counter 2"\r\n2026-11-20,REF-2,50,\r\n2026-11-20,REF-2,50,repeated in the file\r\n';
    const first = await postCsv(tenantId, 'bankCode=stanbic&currencyCode=USD', csv);
    expect(first.status).toBe(201);
    expect(bankStatementImportSchema.parse(first.body)).toMatchObject({
      bankCode: 'stanbic',
      currencyCode: 'USD',
      imported: 2,
      duplicates: 1,
    });
    expect(first.body.id).toMatch(/^bsi_/);
    const json = await harness.request('POST', '/v1/bank-statements', {
      token: tenantToken(tenantId),
      rawBody:
        '{"bankCode":"stanbic","currencyCode":"USD","lines":[{"date":"2026-11-20","reference":"REF-1","amount":100.0},{"date":"2026-11-21","reference":"REF-3","amount":"75.25","description":"new"}]}',
    });
    expect(json.status).toBe(201);
    expect(json.body).toMatchObject({ imported: 1, duplicates: 1 });
    // Another bank or environment is another statement.
    expect((await postCsv(tenantId, 'bankCode=equity&currencyCode=USD', csv)).body).toMatchObject({ imported: 2, duplicates: 1 });
    expect(await harness.db('bank_statement_lines').where({ tenant_id: tenantId }).count('* as n')).toEqual([{ n: '5' }]);
    expectError(await postCsv(tenantId, 'bankCode=stanbic&currencyCode=USD', 'when,ref,amount\n2026-11-20,A,1\n'), 400, 'VALIDATION_ERROR');
    expectError(
      await postCsv(tenantId, 'bankCode=stanbic&currencyCode=USD', 'date,reference,amount\n2026-11-20,A,1.001\n'),
      400,
      'INVALID_AMOUNT',
    );
    expectError(await postCsv(tenantId, 'currencyCode=USD', csv), 400, 'VALIDATION_ERROR');
  });

  it('refuses text/csv on other routes (415) and statements over 10 MiB (413)', async () => {
    const { tenantId } = await newTenant();
    const other = await fetch(`http://127.0.0.1:${harness.service.port}/v1/deposits/bank-slips`, {
      method: 'POST',
      headers: { 'x-internal-token': tenantToken(tenantId), 'content-type': 'text/csv' },
      body: 'a,b\n1,2\n',
    });
    expect(other.status).toBe(415);
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
    expectError(await postCsv(tenantId, 'bankCode=stanbic&currencyCode=USD', big), 413, 'PAYLOAD_TOO_LARGE');
    // Over the default 1 MiB but within 10 MiB: taken.
    const lines = Array.from({ length: 40_000 }, (_, i) => `2026-11-01,BULK-${i},${i + 1}.00,bulk line number ${i}`);
    const bulk = `date,reference,amount,description\n${lines.join('\n')}\n`;
    expect(Buffer.byteLength(bulk)).toBeGreaterThan(1024 * 1024);
    const imported = await postCsv(tenantId, 'bankCode=bulk&currencyCode=USD', bulk);
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ imported: 40_000, duplicates: 0 });
  });

  it('verification completes a matching slip (reference trimmed, case-insensitive) and posts bank_deposit; no match is rejected', async () => {
    const { tenantId, operator } = await newTenant();
    const wallet = await createWallet(tenantId);
    await postCsv(
      tenantId,
      'bankCode=stanbic&currencyCode=USD',
      'date,reference,amount,description\n2026-11-20,  Slip-42 ,120.00,deposit\n',
    );
    const slip = await submitSlip(tenantId, {
      walletId: wallet.id,
      amount: '120',
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: 'slip-42',
    });
    const verified = await verify(tenantId, slip.body.id, operator);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      id: slip.body.id,
      status: 'completed',
      verifiedBy: operator,
      rejectionReason: null,
      fee: '0.00',
    });
    const lines = await waitFor(() => entryLines(slip.body.id), { what: 'the bank deposit entry' });
    expect(lines).toEqual(['bank_deposit', 'DR bank-float:stanbic 120.00', `CR wallet:${wallet.ownerId} 120.00`]);
    await waitFor(async () => ((await balanceOf(tenantId, wallet.id)) === '120.00' ? true : undefined), { what: 'the credit' });
    expect(await harness.db('bank_statement_lines').where({ tenant_id: tenantId }).first()).toMatchObject({ deposit_id: slip.body.id });
    expectError(await verify(tenantId, slip.body.id, operator), 409, 'DEPOSIT_NOT_PENDING');

    // Same reference and amount, but the line is used: rejected, nothing posted.
    const again = await submitSlip(tenantId, {
      walletId: wallet.id,
      amount: '120',
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: 'SLIP-42',
    });
    const rejected = await verify(tenantId, again.body.id, operator);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', rejectionReason: 'NO_MATCHING_STATEMENT_ENTRY', journalEntryId: null });
    // Another amount, bank or environment does not match either.
    const otherAmount = await submitSlip(tenantId, {
      walletId: wallet.id,
      amount: '121',
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: 'slip-42',
    });
    expect((await verify(tenantId, otherAmount.body.id, operator)).body.status).toBe('rejected');
    expectError(
      await harness.request('POST', `/v1/deposits/${slip.body.id}/verify`, {
        token: tenantToken(tenantId, { environment: 'test' }),
        body: { actorId: operator },
      }),
      404,
      'DEPOSIT_NOT_FOUND',
    );
    expect(await entryLines(again.body.id)).toBeUndefined();
    expect(await balanceOf(tenantId, wallet.id)).toBe('120.00');
  });

  it("lists imported lines newest first, the unmatched ones on their own, an import's, paged; another environment sees none", async () => {
    const { tenantId, operator } = await newTenant();
    const wallet = await createWallet(tenantId);
    const first = await postCsv(
      tenantId,
      'bankCode=stanbic&currencyCode=USD',
      'date,reference,amount,description\n2026-11-20,LIST-1,10,first\n2026-11-20,LIST-2,20.5,\n2026-11-21,LIST-3,30,\n',
    );
    const second = await postCsv(
      tenantId,
      'bankCode=equity&currencyCode=USD',
      'date,reference,amount,description\n2026-11-22,LIST-4,40,\n',
    );
    const slip = await submitSlip(tenantId, {
      walletId: wallet.id,
      amount: '20.50',
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: 'list-2',
    });
    expect((await verify(tenantId, slip.body.id, operator)).body.status).toBe('completed');

    const lines = async (query: string) => {
      const listed = await harness.request('GET', `/v1/bank-statements/lines${query}`, { token: tenantToken(tenantId) });
      expect(listed.status).toBe(200);
      return statementLinePageSchema.parse(listed.body);
    };
    const all = await lines('');
    expect(all.data.map((line) => `${line.reference} ${line.amount} ${line.depositId ?? '-'}`)).toEqual([
      'LIST-4 40.00 -',
      'LIST-3 30.00 -',
      `LIST-2 20.50 ${slip.body.id}`,
      'LIST-1 10.00 -',
    ]);
    expect(all.data[3]).toMatchObject({
      importId: first.body.id,
      bankCode: 'stanbic',
      currencyCode: 'USD',
      date: '2026-11-20',
      description: 'first',
      matchedAt: null,
    });
    expect(all.data[2]?.matchedAt).toEqual(expect.any(String));
    expect((await lines('?matched=false')).data.map((line) => line.reference)).toEqual(['LIST-4', 'LIST-3', 'LIST-1']);
    expect((await lines('?matched=true')).data.map((line) => line.reference)).toEqual(['LIST-2']);
    expect((await lines(`?importId=${second.body.id}`)).data.map((line) => line.reference)).toEqual(['LIST-4']);
    expect((await lines(`?importId=${first.body.id}&matched=false`)).data.map((line) => line.reference)).toEqual(['LIST-3', 'LIST-1']);

    // Paged along the cursor, nothing seen twice or skipped.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await lines(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...page.data.map((line) => line.reference));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['LIST-4', 'LIST-3', 'LIST-2', 'LIST-1']);

    const otherEnvironment = await harness.request('GET', '/v1/bank-statements/lines', {
      token: tenantToken(tenantId, { environment: 'test' }),
    });
    expect(otherEnvironment.body).toEqual({ data: [], nextCursor: null });
    const otherTenant = await harness.request('GET', '/v1/bank-statements/lines', { token: tenantToken((await newTenant()).tenantId) });
    expect(otherTenant.body).toEqual({ data: [], nextCursor: null });
    expectError(
      await harness.request('GET', '/v1/bank-statements/lines?matched=yes', { token: tenantToken(tenantId) }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await harness.request('GET', '/v1/bank-statements/lines?importId=dep_1', { token: tenantToken(tenantId) }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await harness.request('GET', '/v1/bank-statements/lines?cursor=forged', { token: tenantToken(tenantId) }),
      400,
      'INVALID_CURSOR',
    );
  });

  it('uses a statement line at most once under concurrent verifications of two matching slips', async () => {
    const { tenantId, operator } = await newTenant();
    const wallet = await createWallet(tenantId);
    await postCsv(tenantId, 'bankCode=stanbic&currencyCode=USD', 'date,reference,amount,description\n2026-11-20,DUP-1,60.00,\n');
    const slips = await Promise.all(
      [1, 2].map(() =>
        submitSlip(tenantId, { walletId: wallet.id, amount: '60', currencyCode: 'USD', bankCode: 'stanbic', slipReference: 'DUP-1' }),
      ),
    );
    const results = await Promise.all(slips.map((slip) => verify(tenantId, slip.body.id, operator)));
    expect(results.map((result) => result.status)).toEqual([200, 200]);
    expect(results.map((result) => result.body.status).sort()).toEqual(['completed', 'rejected']);
    await waitFor(async () => ((await balanceOf(tenantId, wallet.id)) === '60.00' ? true : undefined), { what: 'one credit' });
    expect(await harness.ledger.db('journal_entries').where({ reference_type: 'deposit', tenant_id: tenantId }).count('* as n')).toEqual([
      { n: '1' },
    ]);
  });

  it('audits verifications as deposit.verified and deposit.rejected', async () => {
    const { tenantId, operator } = await newTenant();
    const wallet = await createWallet(tenantId);
    const audit = await harness.watchAuditRecords();
    await postCsv(tenantId, 'bankCode=stanbic&currencyCode=USD', 'date,reference,amount,description\n2026-11-20,AUD-1,5.00,\n');
    const good = await submitSlip(tenantId, {
      walletId: wallet.id,
      amount: '5',
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: 'AUD-1',
    });
    const bad = await submitSlip(tenantId, {
      walletId: wallet.id,
      amount: '6',
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: 'AUD-1',
    });
    await verify(tenantId, good.body.id, operator);
    await verify(tenantId, bad.body.id, operator);
    const records = await waitFor(
      async () => {
        const mine = (await audit.received()).filter((record) => record.tenantId === tenantId);
        return mine.length >= 2 ? mine : undefined;
      },
      { what: 'two audit records' },
    );
    expect(records.map((record) => `${record.action} ${record.targetId} ${record.actorId}`).sort()).toEqual(
      [`deposit.rejected ${bad.body.id} ${operator}`, `deposit.verified ${good.body.id} ${operator}`].sort(),
    );
  });
});

describe('POST /v1/deposits/{id}/reopen: a slip verified before its statement arrived', () => {
  function reopen(tenantId: string, depositId: string, body: Record<string, unknown>) {
    return harness.request('POST', `/v1/deposits/${depositId}/reopen`, { token: tenantToken(tenantId), body });
  }

  it('opens the rejected slip again once, and its line, imported later, then verifies it: no unmatched line is left', async () => {
    const { tenantId, operator } = await newTenant();
    const wallet = await createWallet(tenantId);
    const reference = `LATE-${randomUUID().slice(0, 8)}`;
    const slip = await submitSlip(tenantId, {
      walletId: wallet.id,
      amount: '42.10',
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: reference,
    });
    const audit = await harness.watchAuditRecords();
    expect((await verify(tenantId, slip.body.id, operator)).body).toMatchObject({
      status: 'rejected',
      rejectionReason: 'NO_MATCHING_STATEMENT_ENTRY',
    });
    await postCsv(tenantId, 'bankCode=stanbic&currencyCode=USD', `date,reference,amount,description\n2026-11-20,${reference},42.10,\n`);

    expectError(await reopen(tenantId, slip.body.id, { actorId: operator, reason: '' }), 400, 'VALIDATION_ERROR');
    expectError(
      await reopen(tenantId, slip.body.id, { actorId: await identity.addMember(tenantId, 'observer'), reason: 'x' }),
      403,
      'ACTOR_NOT_PERMITTED',
    );
    expect((await harness.request('GET', `/v1/deposits/${slip.body.id}`, { token: tenantToken(tenantId) })).body.status).toBe('rejected');

    const reopened = await reopen(tenantId, slip.body.id, { actorId: operator, reason: 'The statement of the 20th arrived' });
    expect(reopened.status).toBe(200);
    expect(depositSchema.parse(reopened.body)).toMatchObject({
      status: 'pending',
      rejectionReason: null,
      verifiedBy: null,
      verifiedAt: null,
    });
    expectError(await reopen(tenantId, slip.body.id, { actorId: operator, reason: 'again' }), 409, 'DEPOSIT_NOT_REOPENABLE');

    expect((await verify(tenantId, slip.body.id, operator)).body).toMatchObject({ status: 'completed', verifiedBy: operator });
    await waitFor(async () => ((await balanceOf(tenantId, wallet.id)) === '42.10' ? true : undefined), { what: 'the credit' });
    expectError(await reopen(tenantId, slip.body.id, { actorId: operator, reason: 'no' }), 409, 'DEPOSIT_NOT_REOPENABLE');
    const unmatched = await harness.request('GET', '/v1/bank-statements/lines?matched=false', { token: tenantToken(tenantId) });
    expect(statementLinePageSchema.parse(unmatched.body).data).toEqual([]);

    const records = await waitFor(
      async () => {
        const mine = (await audit.received()).filter((record) => record.targetId === slip.body.id);
        return mine.length >= 3 ? mine : undefined;
      },
      { what: 'three audit records' },
    );
    expect(
      records.map((record) => `${record.action} ${JSON.stringify(record.metadata.before)}>${JSON.stringify(record.metadata.after)}`),
    ).toEqual(
      expect.arrayContaining([
        'deposit.rejected {"status":"pending"}>{"status":"rejected"}',
        'deposit.reopened {"status":"rejected"}>{"status":"pending"}',
        'deposit.verified {"status":"pending"}>{"status":"completed"}',
      ]),
    );
    expect(records.find((record) => record.action === 'deposit.reopened')?.metadata).toMatchObject({
      reason: 'The statement of the 20th arrived',
      rejectionReason: 'NO_MATCHING_STATEMENT_ENTRY',
    });
  });

  it("reopens nothing else: a pending slip, or another tenant's slip", async () => {
    const { tenantId, operator } = await newTenant();
    const wallet = await createWallet(tenantId);
    const pending = await submitSlip(tenantId, {
      walletId: wallet.id,
      amount: '3',
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: 'P-1',
    });
    expectError(await reopen(tenantId, pending.body.id, { actorId: operator, reason: 'why not' }), 409, 'DEPOSIT_NOT_REOPENABLE');
    const other = await newTenant();
    expectError(await reopen(other.tenantId, pending.body.id, { actorId: other.operator, reason: 'mine?' }), 404, 'DEPOSIT_NOT_FOUND');
    expect((await harness.request('GET', `/v1/deposits/${pending.body.id}`, { token: tenantToken(tenantId) })).body.status).toBe('pending');
  });
});

describe('POST /v1/deposits/{id}/verify: who may verify', () => {
  type Verifier = (tenant: { tenantId: string; operator: string }) => Promise<{ actorId: string; headerActor?: string }>;

  async function deactivatedOperator(tenantId: string): Promise<string> {
    const member = await identity.addMember(tenantId, 'operator');
    await identity.deactivateMember(tenantId, member);
    return member;
  }

  const REFUSED: Array<{ title: string; verifier: Verifier; code: string }> = [
    { title: 'an actor who is no member at all', verifier: async () => ({ actorId: 'nobody-at-all' }), code: 'ACTOR_NOT_PERMITTED' },
    { title: "another tenant's operator", verifier: async () => ({ actorId: (await newTenant()).operator }), code: 'ACTOR_NOT_PERMITTED' },
    {
      title: 'an observer (its role lacks deposits:verify)',
      verifier: async (t) => ({ actorId: await identity.addMember(t.tenantId, 'observer') }),
      code: 'ACTOR_NOT_PERMITTED',
    },
    {
      title: 'a deactivated operator',
      verifier: async (t) => ({ actorId: await deactivatedOperator(t.tenantId) }),
      code: 'ACTOR_NOT_PERMITTED',
    },
    {
      title: 'an operator other than the one the key declares',
      verifier: async (t) => ({ actorId: t.operator, headerActor: await identity.addMember(t.tenantId, 'operator') }),
      code: 'ACTOR_MISMATCH',
    },
  ];

  /** A pending slip whose statement line is imported: nothing but the verifier stands between it and the credit. */
  async function matchingSlip(tenantId: string) {
    const wallet = await createWallet(tenantId);
    const reference = `WHO-${randomUUID().slice(0, 8)}`;
    await postCsv(tenantId, 'bankCode=stanbic&currencyCode=USD', `date,reference,amount,description\n2026-11-20,${reference},80.00,\n`);
    const submitted = await submitSlip(tenantId, {
      walletId: wallet.id,
      amount: '80',
      currencyCode: 'USD',
      bankCode: 'stanbic',
      slipReference: reference,
    });
    expect(submitted.status).toBe(201);
    return { wallet, slip: depositSchema.parse(submitted.body) };
  }

  /** The slip reads as submitted (pending, no verifier), its line is unused and the wallet holds nothing. */
  async function expectUntouched(tenantId: string, walletId: string, slip: Deposit) {
    const read = await harness.request('GET', `/v1/deposits/${slip.id}`, { token: tenantToken(tenantId) });
    expect(depositSchema.parse(read.body)).toEqual(slip);
    expect(await harness.db('bank_statement_lines').where({ tenant_id: tenantId }).whereNotNull('deposit_id').count('* as n')).toEqual([
      { n: '0' },
    ]);
    expect(await balanceOf(tenantId, walletId)).toBe('0.00');
  }

  it.each(REFUSED)(
    'refuses $title with 403 $code before anything changes; an operator then verifies the slip',
    async ({ verifier, code }) => {
      const tenant = await newTenant();
      const { wallet, slip } = await matchingSlip(tenant.tenantId);
      const audit = await harness.watchAuditRecords();
      const { actorId, headerActor } = await verifier(tenant);
      expectError(await verify(tenant.tenantId, slip.id, actorId, headerActor), 403, code);
      await expectUntouched(tenant.tenantId, wallet.id, slip);

      const verified = await verify(tenant.tenantId, slip.id, tenant.operator);
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ id: slip.id, status: 'completed', verifiedBy: tenant.operator });
      await waitFor(async () => ((await balanceOf(tenant.tenantId, wallet.id)) === '80.00' ? true : undefined), { what: 'the credit' });
      // The refusal left no record: the slip's only audit record is the operator's verification.
      const records = await waitFor(
        async () => {
          const mine = (await audit.received()).filter((record) => record.targetId === slip.id);
          return mine.length > 0 ? mine : undefined;
        },
        { what: 'the audit record of the verification' },
      );
      expect(records.map((record) => `${record.action} ${record.actorId}`)).toEqual([`deposit.verified ${tenant.operator}`]);
    },
  );

  it('verifies as the operator the key declares', async () => {
    const tenant = await newTenant();
    const { wallet, slip } = await matchingSlip(tenant.tenantId);
    const verified = await verify(tenant.tenantId, slip.id, tenant.operator, tenant.operator);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ status: 'completed', verifiedBy: tenant.operator });
    await waitFor(async () => ((await balanceOf(tenant.tenantId, wallet.id)) === '80.00' ? true : undefined), { what: 'the credit' });
  });

  it('answers 503 while identity cannot answer for the verifier, and leaves the slip pending', async () => {
    const tenant = await newTenant();
    const { wallet, slip } = await matchingSlip(tenant.tenantId);
    await harness.restart({ IDENTITY_URL: 'http://127.0.0.1:9' });
    try {
      expectError(await verify(tenant.tenantId, slip.id, tenant.operator), 503, 'SERVICE_UNAVAILABLE');
      await expectUntouched(tenant.tenantId, wallet.id, slip);
    } finally {
      await harness.restart();
    }
    expect((await verify(tenant.tenantId, slip.id, tenant.operator)).body).toMatchObject({ status: 'completed' });
  });
});
