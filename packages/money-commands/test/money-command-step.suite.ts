import { randomUUID } from 'node:crypto';
import type { LedgerPostV1, LedgerResultV1 } from '@wallet/contracts';
import { AppError, createDb, createOutboxTable, type Db, OUTBOX_TABLE, type OutboxMessage, type Tx } from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';
import {
  type AwaitedRecord,
  MoneyCommand,
  type MoneyCommandDeps,
  postCommandOf,
  type RecordScope,
  settledMoneyCommand,
  settlementStep,
  type TakenStep,
} from '@wallet/money-commands';

/*
 * MoneyCommand.runStep against a real database, with the ledger's side played by the test: a
 * step taken on a record that exists, its command and messages written in the engine's
 * transaction, and the record finished from the reply as `run` finishes one.
 */

interface Stored extends RecordScope {
  seq: string;
  id: string;
  amount: string;
  taken: boolean;
  status: string;
  journalEntryId: string | null;
  failureCode: string | null;
}

const scope: RecordScope = { tenantId: 'tn_step', environment: 'test' };
let db: Db;

beforeAll(async () => {
  db = createDb(await createTestDatabase('money_command_step'), { applicationName: 'money-command-step-test' });
  await createOutboxTable(db);
  await db.raw(`CREATE TABLE slips (
    seq bigserial NOT NULL, id text PRIMARY KEY, tenant_id text NOT NULL, environment text NOT NULL, amount numeric NOT NULL,
    taken boolean NOT NULL DEFAULT false, status text NOT NULL DEFAULT 'pending', journal_entry_id text, failure_code text, finished_at timestamptz)`);
});

afterAll(async () => {
  await db.destroy();
});

const COLUMNS = ['seq', 'id', 'tenant_id', 'environment', 'amount', 'taken', 'status', 'journal_entry_id', 'failure_code'];

function toStored(row: Record<string, unknown>): Stored {
  return {
    seq: String(row.seq),
    id: String(row.id),
    tenantId: String(row.tenant_id),
    environment: row.environment as RecordScope['environment'],
    amount: String(row.amount),
    taken: row.taken === true,
    status: String(row.status),
    journalEntryId: (row.journal_entry_id as string | null) ?? null,
    failureCode: (row.failure_code as string | null) ?? null,
  };
}

async function findSlip(on: Db | Tx, at: RecordScope, id: string): Promise<Stored | null> {
  const row: Record<string, unknown> | undefined = await on('slips')
    .where({ id, tenant_id: at.tenantId, environment: at.environment })
    .first(COLUMNS);
  return row ? toStored(row) : null;
}

const SLIP_COMMAND = settledMoneyCommand<{ id: string; amount: string }, Stored, Stored>({
  recordType: 'slip',
  approval: 'none',
  amount: { limit: 'none' },
  records: { name: 'slips', columns: { id: 'text', tenantId: 'text', environment: 'text', amount: 'numeric' } },
  keyWrite: 'first-write',
  step: settlementStep('slips'),
  find: findSlip,
  show: (slip) => slip,
  refusalOf: (slip) => new AppError('INSUFFICIENT_FUNDS', `refused ${slip.id}`),
  notFound: () => new AppError('NOT_FOUND', 'No such slip'),
});

/** The ledger's side: each command answered as `reply` says once its message is published, and what the engine did with the relay and the postings. */
function ledgerSide(reply: (commandId: string) => LedgerResultV1 | null) {
  const seen = { expected: [] as AwaitedRecord[], cancelled: [] as string[], fromReply: [] as string[], handed: [] as string[][] };
  const committed: string[] = [];
  const waiting = new Map<string, (result: LedgerResultV1 | null) => void>();
  const deps: MoneyCommandDeps = {
    db,
    replyTimeoutMs: 1_000,
    relay: {
      handOver: (messages: readonly OutboxMessage[]) => {
        const ids = messages.map((message) => message.messageId);
        seen.handed.push(ids);
        return {
          committed: () => {
            committed.push(...ids);
            for (const id of ids) waiting.get(id)?.(reply(id));
          },
          abandon: () => undefined,
        };
      },
    },
    postings: {
      replyTo: 'replies',
      expect: (commandId, _timeoutMs, record) => {
        seen.expected.push(record);
        return {
          result: new Promise((resolve) => waiting.set(commandId, resolve)),
          cancel: () => {
            seen.cancelled.push(commandId);
            waiting.get(commandId)?.(null);
          },
        };
      },
      recordedFromReply: (commandId) => seen.fromReply.push(commandId),
    },
  };
  return { command: new MoneyCommand(deps, SLIP_COMMAND), seen, committed };
}

function result(commandId: string, outcome: { journalEntryId: string } | { code: 'INSUFFICIENT_FUNDS' }, id: string): LedgerResultV1 {
  const posted = 'journalEntryId' in outcome;
  return {
    type: 'ledger.result.v1',
    commandId,
    ...scope,
    status: posted ? 'posted' : 'rejected',
    journalEntryId: posted ? outcome.journalEntryId : null,
    reference: { type: 'slip', id },
    error: posted ? null : { code: outcome.code, message: 'refused' },
    duplicate: false,
    processedAt: new Date().toISOString(),
  };
}

async function newSlip(): Promise<string> {
  const id = `sl_${randomUUID()}`;
  await db('slips').insert({ id, tenant_id: scope.tenantId, environment: scope.environment, amount: '5.00' });
  return id;
}

function commandOf(id: string, commandId = `${id}:post`): LedgerPostV1 {
  return postCommandOf(scope, {
    commandId,
    kind: 'bank_deposit',
    reference: { type: 'slip', id },
    lines: [
      { accountName: 'bank-float:b1', direction: 'DR', amount: '5.00', currencyCode: 'USD' },
      { accountName: 'wallet:owner', direction: 'CR', amount: '5.00', currencyCode: 'USD' },
    ],
  });
}

function audit(id: string): OutboxMessage {
  return { messageId: `${id}:audit`, exchange: 'audit', routingKey: 'audit', type: 'audit.v1', payload: { id } };
}

/** The step: the slip marked taken, with its command, or with none (`post` false). */
function takeStep(id: string, options: { post?: boolean; commandId?: string } = {}) {
  return async (tx: Tx): Promise<TakenStep<Stored>> => {
    await tx('slips').where({ id }).update({ taken: true });
    const record = (await findSlip(tx, scope, id)) as Stored;
    return { record, command: options.post === false ? null : commandOf(id, options.commandId), alsoSent: [audit(id)] };
  };
}

async function outboxOf(id: string): Promise<Array<{ message_id: string; headers: unknown }>> {
  return db(OUTBOX_TABLE)
    .whereRaw('message_id LIKE ?', [`${id}:%`])
    .orderBy('message_id')
    .select('message_id', 'headers');
}

describe('MoneyCommand.runStep', () => {
  it("writes the step, its command (naming the reply queue) and what goes with it in one transaction, and finishes from the ledger's entry", async () => {
    const id = await newSlip();
    const ledger = ledgerSide((commandId) => result(commandId, { journalEntryId: 'je_1' }, id));
    const done = await ledger.command.runStep({ scope, id, commandId: `${id}:post`, write: takeStep(id) });

    expect(done).toMatchObject({ status: 201, shown: { id, taken: true, status: 'completed', journalEntryId: 'je_1' } });
    expect(await findSlip(db, scope, id)).toMatchObject({ taken: true, status: 'completed', journalEntryId: 'je_1' });
    const outbox = await outboxOf(id);
    expect(outbox.map((row) => row.message_id)).toEqual([`${id}:audit`, `${id}:post`]);
    expect(JSON.stringify(outbox[1]?.headers)).toContain('"replies"');
    expect(ledger.seen.expected).toEqual([{ type: 'slip', id }]);
    expect(ledger.seen.handed).toEqual([[`${id}:post`, `${id}:audit`]]);
    expect(ledger.committed).toEqual([`${id}:post`, `${id}:audit`]);
    expect(ledger.seen.fromReply).toEqual([`${id}:post`]);
  });

  it('answers 200 with the record as written when the step posts nothing, sending what goes with it', async () => {
    const id = await newSlip();
    const ledger = ledgerSide(() => {
      throw new Error('nothing was sent to answer');
    });
    const done = await ledger.command.runStep({ scope, id, commandId: `${id}:post`, write: takeStep(id, { post: false }) });

    expect(done).toEqual({ status: 200, shown: expect.objectContaining({ id, taken: true, status: 'pending' }) });
    expect((await outboxOf(id)).map((row) => row.message_id)).toEqual([`${id}:audit`]);
    expect(ledger.seen.cancelled).toEqual([`${id}:post`]);
    expect(ledger.committed).toEqual([`${id}:audit`]);
  });

  it('answers 202 with the record as written past the deadline, leaving it to the ledger event', async () => {
    const id = await newSlip();
    const ledger = ledgerSide(() => null);
    const done = await ledger.command.runStep({ scope, id, commandId: `${id}:post`, write: takeStep(id) });

    expect(done).toEqual({ status: 202, shown: expect.objectContaining({ id, taken: true, status: 'pending' }) });
    expect(await findSlip(db, scope, id)).toMatchObject({ taken: true, status: 'pending', journalEntryId: null });
    expect(ledger.seen.fromReply).toEqual([]);
  });

  it("records the ledger's refusal and throws it as the declaration's refusal", async () => {
    const id = await newSlip();
    const ledger = ledgerSide((commandId) => result(commandId, { code: 'INSUFFICIENT_FUNDS' }, id));
    await expect(ledger.command.runStep({ scope, id, commandId: `${id}:post`, write: takeStep(id) })).rejects.toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
    });
    expect(await findSlip(db, scope, id)).toMatchObject({ status: 'failed', failureCode: 'INSUFFICIENT_FUNDS' });
    expect(ledger.seen.fromReply).toEqual([`${id}:post`]);
  });

  it('writes and sends nothing when the write throws, or posts a command other than the one awaited', async () => {
    const refused = await newSlip();
    const ledger = ledgerSide(() => null);
    const refusal = new AppError('DEPOSIT_NOT_PENDING', 'not pending');
    const failing = async (tx: Tx): Promise<TakenStep<Stored>> => {
      await takeStep(refused)(tx);
      throw refusal;
    };
    await expect(ledger.command.runStep({ scope, id: refused, commandId: `${refused}:post`, write: failing })).rejects.toBe(refusal);
    const other = await newSlip();
    await expect(
      ledger.command.runStep({ scope, id: other, commandId: `${other}:post`, write: takeStep(other, { commandId: `${other}:other` }) }),
    ).rejects.toThrow(`posts ${other}:other, not ${other}:post`);

    for (const id of [refused, other]) {
      expect(await findSlip(db, scope, id)).toMatchObject({ taken: false, status: 'pending' });
      expect(await outboxOf(id)).toEqual([]);
    }
    expect(ledger.seen.cancelled).toEqual([`${refused}:post`, `${other}:post`]);
    expect(ledger.committed).toEqual([]);
  });
});
