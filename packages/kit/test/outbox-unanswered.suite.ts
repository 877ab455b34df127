import {
  createDb,
  createOutboxTable,
  type Db,
  enqueueOutbox,
  markAnswered,
  type OutboxMessage,
  outboxDeleteStatement,
  RESEND_MAX,
  resendUnanswered,
} from '@wallet/kit';
import { createTestDatabase } from '@wallet/kit/testing';

function message(id: string, untilAnswered: boolean): OutboxMessage {
  return { messageId: id, exchange: 'ledger.commands', routingKey: 'tn_1', type: 'ledger.post.v1', payload: { id }, untilAnswered };
}

describe('outbox messages kept until answered', () => {
  let db: Db;
  beforeAll(async () => {
    db = createDb(await createTestDatabase('kit_unanswered'), { poolMax: 4 });
    await createOutboxTable(db);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  const outboxIds = async (): Promise<string[]> => (await db('outbox').orderBy('id').pluck('message_id')) as string[];
  const published = async (ids: string[]): Promise<void> => {
    const statement = outboxDeleteStatement(ids);
    await db.raw(statement.sql, statement.bindings);
  };

  it('keeps a message that expects an answer beside its outbox row, and puts it back in the outbox once it is due, unless answered', async () => {
    await db.transaction((tx) => enqueueOutbox(tx, [message('cmd-a', true), message('cmd-b', true), message('event-c', false)]));
    expect(await db('outbox_unanswered').orderBy('message_id').pluck('message_id')).toEqual(['cmd-a', 'cmd-b']);
    // Still in the outbox, unsent: nothing is sent twice from here.
    expect(await resendUnanswered(db, 0)).toBe(0);
    expect(await outboxIds()).toEqual(['cmd-a', 'cmd-b', 'event-c']);

    await published(['cmd-a', 'cmd-b', 'event-c']);
    await db.transaction((tx) => markAnswered(tx, ['cmd-b']));
    expect(await resendUnanswered(db, 60_000)).toBe(0);
    expect(await resendUnanswered(db, 0)).toBe(1);
    expect(await outboxIds()).toEqual(['cmd-a']);
    const [row] = await db('outbox_unanswered').select('message_id', 'resent', 'payload');
    expect(row).toEqual({ message_id: 'cmd-a', resent: 1, payload: JSON.stringify({ id: 'cmd-a' }) });
  });

  it('stops sending a message again after RESEND_MAX times, keeping its row', async () => {
    await db.transaction((tx) => enqueueOutbox(tx, [message('cmd-failing', true)]));
    for (let round = 0; round <= RESEND_MAX; round += 1) {
      await published(['cmd-failing']);
      await resendUnanswered(db, 0);
    }
    expect(await db('outbox_unanswered').where({ message_id: 'cmd-failing' }).first('resent')).toEqual({ resent: RESEND_MAX });
    expect(await outboxIds()).not.toContain('cmd-failing');
  });

  it('gives each due message to one of two instances sending at once', async () => {
    const ids = Array.from({ length: 200 }, (_, index) => `cmd-many-${index}`);
    await db.transaction((tx) =>
      enqueueOutbox(
        tx,
        ids.map((id) => message(id, true)),
      ),
    );
    await published(ids);
    const [first, second] = await Promise.all([resendUnanswered(db, 0, 150), resendUnanswered(db, 0, 150)]);
    // One may skip every row the other holds (SKIP LOCKED) under load: a third pass takes what is left.
    const rest = await resendUnanswered(db, 0, 150);
    expect((first ?? 0) + (second ?? 0) + (rest ?? 0)).toBe(200);
    const outbox = await outboxIds();
    expect(outbox.filter((id) => id.startsWith('cmd-many-')).sort()).toEqual([...ids].sort());
  });
});
