import { type AnnouncedEvent, derivedId, type EventType, type LedgerResultV1, type PlatformEvent } from '@wallet/contracts';
import { announcedEvent, type Db, type Tx } from '@wallet/kit';

/*
 * What a movement's records announce when the ledger answers them (docs/events.md). The ledger
 * events consumer already sees every result of the service's postings, off the request path: it
 * reads the records in the transaction that records the results (or finds them recorded from the
 * reply), and publishes their events after its commit and before its acknowledgement, so an event
 * is never lost and never costs a request anything.
 */

/** The events of a batch of results of one reference type. */
export type PostingAnnouncer = (tx: Tx, results: readonly LedgerResultV1[]) => Promise<AnnouncedEvent[]>;

/** How a movement's records become events: the event type of a result, and the record as the API shows it. */
export interface AnnouncedRecords<Stored extends { id: string }> {
  /** The event a result announces; null for none (a refused reversal changes nothing a client sees). */
  typeOf(result: LedgerResultV1): EventType | null;
  find(db: Db | Tx, scope: { tenantId: string; environment: 'test' | 'live' }, id: string): Promise<Stored | null>;
  /** Many records in one read, where the movement has it: a busy movement's batch then costs one statement, not one per result. */
  findMany?: ((db: Db | Tx, ids: readonly string[]) => Promise<Stored[]>) | undefined;
  show(record: Stored): unknown;
}

/** The records the results name, by id: in one read where the movement has one, else one each. */
async function recordsOf<Stored extends { id: string }>(
  tx: Tx,
  records: AnnouncedRecords<Stored>,
  results: readonly LedgerResultV1[],
): Promise<Map<string, Stored>> {
  const named = results.flatMap((result) => (result.reference ? [{ result, id: result.reference.id }] : []));
  if (records.findMany)
    return new Map((await records.findMany(tx, [...new Set(named.map(({ id }) => id))])).map((record) => [record.id, record]));
  const found = new Map<string, Stored>();
  for (const { result, id } of named) {
    const record = await records.find(tx, { tenantId: result.tenantId, environment: result.environment }, id);
    if (record) found.set(id, record);
  }
  return found;
}

/**
 * The event of one result: its id derived from the command and its outcome, so the event of a
 * result seen again (a redelivery, a repeat the ledger publishes again) is the same event, which
 * identity records once.
 */
export function eventOfResult(result: LedgerResultV1, type: EventType, object: Record<string, unknown>): PlatformEvent {
  const createdAt = new Date(Date.parse(result.processedAt));
  return {
    id: derivedId('event', `${result.commandId}:${result.status}`, createdAt.getTime()),
    type,
    createdAt: createdAt.toISOString(),
    environment: result.environment,
    data: { object },
  };
}

/** The announcer of a movement's records: each result's record read in the consumer's transaction, after its finisher. */
export function postingAnnouncer<Stored extends { id: string }>(records: AnnouncedRecords<Stored>): PostingAnnouncer {
  return async (tx, results) => {
    const announcing = results.filter((result) => records.typeOf(result) !== null);
    const found = await recordsOf(tx, records, announcing);
    const events: AnnouncedEvent[] = [];
    for (const result of announcing) {
      const type = records.typeOf(result);
      const record = result.reference ? found.get(result.reference.id) : undefined;
      if (!type || !record) continue;
      const event = eventOfResult(result, type, records.show(record) as Record<string, unknown>);
      events.push(announcedEvent({ tenantId: result.tenantId, objectId: record.id, event }));
    }
    return events;
  };
}

/** What a movement that posts at once announces: its posted result's event, and its refused result's where a refusal shows. */
export interface CommandAnnouncements {
  posted: EventType;
  refused?: EventType;
}

/** The event type of a money command's result. */
export function commandEventType(announces: CommandAnnouncements): (result: LedgerResultV1) => EventType | null {
  return (result) => (result.status === 'posted' ? announces.posted : result.status === 'rejected' ? (announces.refused ?? null) : null);
}
