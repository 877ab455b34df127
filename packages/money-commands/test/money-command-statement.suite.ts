import { createHash, randomUUID } from 'node:crypto';
import {
  claimIdempotencyKey,
  createDb,
  createIdempotencyTable,
  createOutboxTable,
  type Db,
  finalAnswersStatement,
  type IdempotencyClaim,
  IDEMPOTENCY_TABLE,
  jsonResponse,
  OUTBOX_TABLE,
  type OutboxMessage,
} from '@wallet/kit';
import {
  ClaimRefusedError,
  finishSteps,
  insertRecords,
  type NewRecord,
  type RecordClaim,
  type RecordTable,
  recordPosted,
  settlementStep,
} from '@wallet/money-commands';
import { createTestDatabase } from '@wallet/kit/testing';

interface Thing {
  id: string;
  amount: string;
  detail: { bank: string; lines: string[] } | null;
  note: string | null;
  createdAt: Date;
}

const THINGS: RecordTable<Thing> = {
  name: 'things',
  columns: {
    id: 'text',
    tenantId: 'text',
    environment: 'text',
    amount: 'numeric',
    detail: 'jsonb',
    note: 'text',
    createdAt: 'timestamptz',
  },
};
const THING_POSTING = settlementStep('things');
const scope = { tenantId: 'tn_statement', environment: 'test' as const };

let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('money_command_statement'), { applicationName: 'money-command-statement-test' });
  await createIdempotencyTable(db);
  await createOutboxTable(db);
  await db.raw(`CREATE TABLE things (
    seq bigserial NOT NULL, id text PRIMARY KEY, tenant_id text NOT NULL, environment text NOT NULL, amount numeric NOT NULL, detail jsonb, note text,
    created_at timestamptz NOT NULL, status text NOT NULL DEFAULT 'pending', journal_entry_id text, failure_code text, finished_at timestamptz)`);
  await db.raw(
    `CREATE TABLE pots (id text PRIMARY KEY, tenant_id text NOT NULL, environment text NOT NULL, status text NOT NULL, cap numeric NOT NULL, taken numeric NOT NULL DEFAULT 0)`,
  );
  await db.raw(`CREATE TABLE shares (
    seq bigserial NOT NULL, id text PRIMARY KEY, tenant_id text NOT NULL, environment text NOT NULL, pot_id text NOT NULL REFERENCES pots (id), amount numeric NOT NULL,
    status text NOT NULL DEFAULT 'pending', journal_entry_id text, failure_code text, finished_at timestamptz)`);
});

afterAll(async () => {
  await db.destroy();
});

/** A request's fingerprint is a sha256 in hex; any such will do here. */
function fingerprintOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function firstWriteClaim(key = `key-${randomUUID()}`): IdempotencyClaim {
  return { scope, key, fingerprint: fingerprintOf(key), lockToken: randomUUID(), takenOver: false, ttlSeconds: 3_600 };
}

async function heldClaim(): Promise<IdempotencyClaim> {
  const key = `key-${randomUUID()}`;
  const outcome = await claimIdempotencyKey(db, scope, key, fingerprintOf(key));
  if (outcome.kind !== 'claimed') throw new Error(`key ${key} was not claimed`);
  return outcome.claim;
}

function message(thingId: string, label: string): OutboxMessage {
  return { messageId: `${thingId}:${label}`, exchange: 'things', routingKey: label, type: 'thing.v1', payload: { thingId, label } };
}

function newThing(claim: IdempotencyClaim, overrides: Partial<Thing> = {}, labels = ['post']): NewRecord<Thing> {
  const id = `th_${randomUUID()}`;
  const draft: Thing = {
    id,
    amount: '12.50',
    detail: { bank: 'b1', lines: ['a "quoted"\nline'] },
    note: null,
    createdAt: new Date('2026-11-26T10:00:00.123Z'),
    ...overrides,
  };
  return {
    scope,
    draft,
    answer: { claim, response: jsonResponse(202, { id, status: 'pending' }) },
    messages: labels.map((label) => message(id, label)),
  };
}

async function thingRow(id: string) {
  return db('things').where({ id }).first();
}

async function messagesOf(id: string): Promise<string[]> {
  const rows: Array<{ message_id: string }> = await db(OUTBOX_TABLE)
    .whereRaw('message_id LIKE ?', [`${id}:%`])
    .orderBy('message_id')
    .select('message_id');
  return rows.map((row) => row.message_id);
}

async function keyRow(claim: IdempotencyClaim) {
  return db(IDEMPOTENCY_TABLE).where({ tenant_id: scope.tenantId, environment: scope.environment, idempotency_key: claim.key }).first();
}

describe('the record statement', () => {
  it('writes each record with its columns, its messages and its key answered 202, in one statement for all', async () => {
    const plain = newThing(firstWriteClaim(), {}, ['post', 'audit']);
    const bare = newThing(firstWriteClaim(), { detail: null, note: 'a note', amount: '0.01' });
    const seqs = await insertRecords(db, THINGS, 'first-write', [plain, bare]);

    expect(seqs).toEqual([expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)]);
    expect(BigInt(seqs[1] as string)).toBeGreaterThan(BigInt(seqs[0] as string));
    expect(await thingRow(plain.draft.id)).toMatchObject({
      seq: seqs[0],
      tenant_id: scope.tenantId,
      environment: 'test',
      amount: '12.50',
      detail: { bank: 'b1', lines: ['a "quoted"\nline'] },
      note: null,
      status: 'pending',
      created_at: new Date('2026-11-26T10:00:00.123Z'),
    });
    expect(await thingRow(bare.draft.id)).toMatchObject({ amount: '0.01', detail: null, note: 'a note' });
    expect(await messagesOf(plain.draft.id)).toEqual([`${plain.draft.id}:audit`, `${plain.draft.id}:post`]);
    expect(await messagesOf(bare.draft.id)).toEqual([`${bare.draft.id}:post`]);
    const key = await keyRow(plain.answer.claim);
    expect(key).toMatchObject({ status: 'completed', response_status: 202, lock_token: plain.answer.claim.lockToken });
    expect(JSON.parse((key.response_body as Buffer).toString('utf8'))).toEqual({ id: plain.draft.id, status: 'pending' });
  });

  it('writes nothing of a record whose key another attempt wrote first, and the rest of the statement all the same', async () => {
    const first = newThing(firstWriteClaim());
    await insertRecords(db, THINGS, 'first-write', [first]);
    const again = newThing(firstWriteClaim(first.answer.claim.key));
    const other = newThing(firstWriteClaim());
    const seqs = await insertRecords(db, THINGS, 'first-write', [again, other]);

    expect(seqs[0]).toBeNull();
    expect(seqs[1]).not.toBeNull();
    expect(await thingRow(again.draft.id)).toBeUndefined();
    expect(await messagesOf(again.draft.id)).toEqual([]);
    expect((await keyRow(first.answer.claim)).lock_token).toBe(first.answer.claim.lockToken);
    expect(await messagesOf(other.draft.id)).toEqual([`${other.draft.id}:post`]);
  });

  it('writes a key named twice in one statement once: the first record is written, the second not at all', async () => {
    const claim = firstWriteClaim();
    const [one, two] = [newThing(claim), newThing({ ...claim, lockToken: randomUUID() })];
    const seqs = await insertRecords(db, THINGS, 'first-write', [one, two]);
    expect(seqs[0]).not.toBeNull();
    expect(seqs[1]).toBeNull();
    expect(await thingRow(two.draft.id)).toBeUndefined();
    expect(await messagesOf(two.draft.id)).toEqual([]);
  });

  it('completes a key claimed before, and writes nothing once another attempt has taken the key over', async () => {
    const held = newThing(await heldClaim());
    const [seq] = await insertRecords(db, THINGS, 'held', [held]);
    expect(seq).not.toBeNull();
    expect(await keyRow(held.answer.claim)).toMatchObject({ status: 'completed', response_status: 202, locked_until: null });

    const lost = newThing(await heldClaim());
    await db(IDEMPOTENCY_TABLE).where({ idempotency_key: lost.answer.claim.key }).update({ lock_token: randomUUID() });
    expect(await insertRecords(db, THINGS, 'held', [lost])).toEqual([null]);
    expect(await thingRow(lost.draft.id)).toBeUndefined();
    expect(await messagesOf(lost.draft.id)).toEqual([]);
    expect(await keyRow(lost.answer.claim)).toMatchObject({ status: 'in_progress' });
  });
});

describe('a record under a natural key (no Idempotency-Key)', () => {
  const NATURAL: RecordTable<Thing> = { ...THINGS, name: 'natural_things', naturalKey: '(tenant_id, note) WHERE note IS NOT NULL' };

  beforeAll(async () => {
    await db.raw('CREATE TABLE natural_things (LIKE things INCLUDING ALL)');
    await db.raw('CREATE UNIQUE INDEX natural_things_note ON natural_things (tenant_id, note) WHERE note IS NOT NULL');
  });

  function naturalThing(note: string): NewRecord<Thing> {
    const record = newThing(firstWriteClaim(), { note });
    return { ...record, answer: null };
  }

  it('writes the first record of a key with its messages, and nothing of a repeat, in the same statement or a later one', async () => {
    const note = `txn-${randomUUID()}`;
    const keysBefore = await db(IDEMPOTENCY_TABLE).count('* as n');
    const [first, sameStatement, other] = [naturalThing(note), naturalThing(note), naturalThing(`txn-${randomUUID()}`)];
    const seqs = await insertRecords(db, NATURAL, 'natural-key', [first, sameStatement, other]);
    expect(seqs[0]).not.toBeNull();
    expect(seqs[1]).toBeNull();
    expect(seqs[2]).not.toBeNull();
    const later = naturalThing(note);
    expect(await insertRecords(db, NATURAL, 'natural-key', [later])).toEqual([null]);
    const rows = await db('natural_things').where({ note }).select('id');
    expect(rows.map((row: { id: string }) => row.id)).toEqual([first.draft.id]);
    expect(await messagesOf(first.draft.id)).toEqual([`${first.draft.id}:post`]);
    expect(await messagesOf(sameStatement.draft.id)).toEqual([]);
    expect(await messagesOf(later.draft.id)).toEqual([]);
    // No Idempotency-Key is written under a natural key.
    expect(await db(IDEMPOTENCY_TABLE).count('* as n')).toEqual(keysBefore);
  });

  it('credits once under concurrent statements of one key', async () => {
    const note = `txn-${randomUUID()}`;
    const attempts = Array.from({ length: 8 }, () => naturalThing(note));
    const seqs = (await Promise.all(attempts.map((attempt) => insertRecords(db, NATURAL, 'natural-key', [attempt])))).flat();
    expect(seqs.filter((seq) => seq !== null)).toHaveLength(1);
    expect(await db('natural_things').where({ note }).count('* as n')).toEqual([{ n: '1' }]);
    const sent = (await Promise.all(attempts.map((attempt) => messagesOf(attempt.draft.id)))).flat();
    expect(sent).toHaveLength(1);
  });
});

describe('the statements that record the ledger’s answer to a step', () => {
  async function created(): Promise<{ record: NewRecord<Thing>; seq: string }> {
    const record = newThing(firstWriteClaim());
    const [seq] = await insertRecords(db, THINGS, 'first-write', [record]);
    if (!seq) throw new Error('not written');
    return { record, seq };
  }

  it('finishes rows still waiting in their scope, each once, posted or refused', async () => {
    const posted = await created();
    const refused = await created();
    const elsewhere = await created();
    const finished = await finishSteps(db, THING_POSTING, [
      { scope, id: posted.record.draft.id, outcome: { status: 'posted', journalEntryId: 'je_1' } },
      { scope, id: refused.record.draft.id, outcome: { status: 'refused', failureCode: 'INSUFFICIENT_FUNDS' } },
      { scope: { ...scope, environment: 'live' }, id: elsewhere.record.draft.id, outcome: { status: 'posted', journalEntryId: 'je_2' } },
    ]);
    expect(finished).toBe(2);
    expect(await thingRow(posted.record.draft.id)).toMatchObject({
      status: 'completed',
      journal_entry_id: 'je_1',
      failure_code: null,
      finished_at: expect.any(Date),
    });
    expect(await thingRow(refused.record.draft.id)).toMatchObject({
      status: 'failed',
      journal_entry_id: null,
      failure_code: 'INSUFFICIENT_FUNDS',
    });
    expect(await thingRow(elsewhere.record.draft.id)).toMatchObject({ status: 'pending', finished_at: null });

    // A later answer (a redelivery, the reply after the event) changes nothing.
    expect(
      await finishSteps(db, THING_POSTING, [{ scope, id: refused.record.draft.id, outcome: { status: 'posted', journalEntryId: 'je_3' } }]),
    ).toBe(0);
    expect(await thingRow(refused.record.draft.id)).toMatchObject({ status: 'failed', journal_entry_id: null });
  });

  it("records a posted entry with the caller's 201, stored even when the event recorded the entry first, and not for a key taken over", async () => {
    const fresh = await created();
    const early = await created();
    const lost = await created();
    await finishSteps(db, THING_POSTING, [{ scope, id: early.record.draft.id, outcome: { status: 'posted', journalEntryId: 'je_early' } }]);
    await db(IDEMPOTENCY_TABLE).where({ idempotency_key: lost.record.answer.claim.key }).update({ lock_token: randomUUID() });
    const answers = [fresh, early, lost].map(({ record }) => ({
      claim: record.answer.claim,
      response: jsonResponse(201, { id: record.draft.id, status: 'completed' }),
    }));
    const stored = await recordPosted(
      db,
      THING_POSTING,
      [fresh, early, lost].map(({ record, seq }, index) => ({
        scope,
        record: { id: record.draft.id, seq },
        journalEntryId: `je_${index}`,
      })),
      finalAnswersStatement(answers),
    );

    expect(stored).toEqual(new Set([fresh.record.answer.claim.lockToken, early.record.answer.claim.lockToken]));
    expect(await thingRow(fresh.record.draft.id)).toMatchObject({ status: 'completed', journal_entry_id: 'je_0' });
    expect(await thingRow(early.record.draft.id)).toMatchObject({ status: 'completed', journal_entry_id: 'je_early' });
    expect(await thingRow(lost.record.draft.id)).toMatchObject({ status: 'completed', journal_entry_id: 'je_2' });
    expect(await keyRow(early.record.answer.claim)).toMatchObject({ response_status: 201 });
    expect(await keyRow(lost.record.answer.claim)).toMatchObject({ response_status: 202 });
  });

  it('names the row by its seq as well: an entry for another seq of the id is not recorded', async () => {
    const thing = await created();
    const answer = { claim: thing.record.answer.claim, response: jsonResponse(201, { id: thing.record.draft.id }) };
    const wrongSeq = String(BigInt(thing.seq) + 1000n);
    await recordPosted(
      db,
      THING_POSTING,
      [{ scope, record: { id: thing.record.draft.id, seq: wrongSeq }, journalEntryId: 'je_x' }],
      finalAnswersStatement([answer]),
    );
    expect(await thingRow(thing.record.draft.id)).toMatchObject({ status: 'pending', journal_entry_id: null });
  });
});

interface Share {
  id: string;
  potId: string;
  amount: string;
}

const SHARE_CLAIM: RecordClaim<Share> = {
  claimTable: 'pots',
  key: 'potId',
  when: "c.status = 'open'",
  totals: [{ total: 'taken', adds: 'amount', upTo: 'cap' }],
};
const SHARES: RecordTable<Share> = {
  name: 'shares',
  columns: { id: 'text', tenantId: 'text', environment: 'text', potId: 'text', amount: 'numeric' },
  claim: SHARE_CLAIM,
};
const SHARE_POSTING = { ...settlementStep('shares'), claim: SHARE_CLAIM as RecordClaim };

describe('a record that claims a share of another row', () => {
  async function newPot(cap: string, status = 'open', inScope = scope): Promise<string> {
    const id = `pot_${randomUUID()}`;
    await db('pots').insert({ id, tenant_id: inScope.tenantId, environment: inScope.environment, status, cap });
    return id;
  }

  function newShare(potId: string, amount: string, claim = firstWriteClaim()): NewRecord<Share> {
    const id = `sh_${randomUUID()}`;
    return { scope, draft: { id, potId, amount }, answer: { claim, response: jsonResponse(202, { id }) }, messages: [message(id, 'post')] };
  }

  async function taken(potId: string): Promise<string> {
    return String(Number((await db('pots').where({ id: potId }).first('taken')).taken));
  }

  async function nothingOf(share: NewRecord<Share>): Promise<void> {
    expect([
      await db('shares').where({ id: share.draft.id }).first(),
      await keyRow(share.answer.claim),
      await messagesOf(share.draft.id),
    ]).toEqual([undefined, undefined, []]);
  }

  it('is written with its claim where the claim holds, and nothing of it where it does not', async () => {
    const pot = await newPot('10');
    const fits = newShare(pot, '6');
    expect(await insertRecords(db, SHARES, 'first-write', [fits])).toEqual([expect.stringMatching(/^\d+$/)]);
    expect([await taken(pot), await messagesOf(fits.draft.id), (await keyRow(fits.answer.claim))?.response_status]).toEqual([
      '6',
      [`${fits.draft.id}:post`],
      202,
    ]);

    const over = newShare(pot, '4.01');
    await expect(insertRecords(db, SHARES, 'first-write', [over])).rejects.toBeInstanceOf(ClaimRefusedError);
    await nothingOf(over);
    const closed = newShare(await newPot('10', 'closed'), '1');
    await expect(insertRecords(db, SHARES, 'first-write', [closed])).rejects.toBeInstanceOf(ClaimRefusedError);
    await nothingOf(closed);
    const elsewhere = newShare(await newPot('10', 'open', { tenantId: 'tn_other', environment: 'test' }), '1');
    await expect(insertRecords(db, SHARES, 'first-write', [elsewhere])).rejects.toBeInstanceOf(ClaimRefusedError);
    await nothingOf(elsewhere);
    expect(await taken(pot)).toBe('6');
  });

  it('undoes the whole statement when one claim of it does not hold, two on one row included (each is then run alone)', async () => {
    const pot = await newPot('10');
    const first = newShare(pot, '3');
    const second = newShare(pot, '3');
    await expect(insertRecords(db, SHARES, 'first-write', [first, second])).rejects.toBeInstanceOf(ClaimRefusedError);
    await nothingOf(first);
    await nothingOf(second);
    expect(await taken(pot)).toBe('0');
    for (const share of [first, second])
      expect(await insertRecords(db, SHARES, 'first-write', [share])).toEqual([expect.stringMatching(/^\d+$/)]);
    expect(await taken(pot)).toBe('6');
  });

  it('claims nothing for a record whose key another attempt wrote first', async () => {
    const pot = await newPot('10');
    const claim = firstWriteClaim();
    expect(await insertRecords(db, SHARES, 'first-write', [newShare(pot, '2', claim)])).toEqual([expect.stringMatching(/^\d+$/)]);
    const retry = newShare(pot, '2', { ...claim, lockToken: randomUUID() });
    expect(await insertRecords(db, SHARES, 'first-write', [retry])).toEqual([null]);
    expect(await taken(pot)).toBe('2');
  });

  it('gives the claims back when the ledger refuses their records, summed per row, and never for a posted one or twice', async () => {
    const pot = await newPot('10');
    const shares = [newShare(pot, '1'), newShare(pot, '2'), newShare(pot, '3')];
    for (const share of shares) await insertRecords(db, SHARES, 'first-write', [share]);
    expect(await taken(pot)).toBe('6');
    const [posted, refused, alsoRefused] = shares.map((share) => share.draft.id) as [string, string, string];
    const outcomes = [
      { scope, id: posted, outcome: { status: 'posted' as const, journalEntryId: 'je_1' } },
      { scope, id: refused, outcome: { status: 'refused' as const, failureCode: 'INSUFFICIENT_FUNDS' } },
      { scope, id: alsoRefused, outcome: { status: 'refused' as const, failureCode: 'INSUFFICIENT_FUNDS' } },
    ];
    expect(await finishSteps(db, SHARE_POSTING, outcomes)).toBe(3);
    expect(await taken(pot)).toBe('1');
    expect(await finishSteps(db, SHARE_POSTING, outcomes)).toBe(0);
    expect(await taken(pot)).toBe('1');
  });
});
