import type {
  DeadLetter,
  DeadLetterAction,
  DeadLetterList,
  DeadLetterListQuery,
  DeadLettersReplayed,
  DeadLetterSummary,
  ReplayDeadLettersBody,
} from '@wallet/contracts';
import { AppError, type Db, type DeadLetterQueues, type InternalClaims } from '@wallet/kit';
import { auditActorFields, recordAuditEvents } from '../audit/audit-trail';

type DeadLetterAuditAction = 'dead_letter.replayed' | 'dead_letter.discarded';

function notParked(id: string): AppError {
  return new AppError('DEAD_LETTER_NOT_FOUND', 'No such message is parked: it was replayed or discarded, or never dead-lettered', { id });
}

/**
 * The operator's dead-letter tooling. Identity serves it because it keeps the audit trail:
 * every replay and discard is recorded (platform record, no tenant) before it takes effect.
 */
export class DeadLettersService {
  constructor(private readonly deps: { db: Db; queues: DeadLetterQueues }) {}

  list(query: DeadLetterListQuery): Promise<DeadLetterList> {
    return this.deps.queues.list(query);
  }

  async get(id: string): Promise<DeadLetter> {
    const found = await this.deps.queues.get(id);
    if (!found) throw notParked(id);
    return found;
  }

  async replay(id: string, claims: InternalClaims): Promise<DeadLetterAction> {
    const replayed = await this.deps.queues.replay(id, this.recorder('dead_letter.replayed', claims));
    if (!replayed) throw notParked(id);
    return { action: 'replayed', deadLetter: replayed };
  }

  async replayMany(body: ReplayDeadLettersBody, claims: InternalClaims): Promise<DeadLettersReplayed> {
    return { replayed: await this.deps.queues.replayMany(body, this.recorder('dead_letter.replayed', claims)) };
  }

  async discard(id: string, claims: InternalClaims): Promise<DeadLetterAction> {
    const discarded = await this.deps.queues.discard(id, this.recorder('dead_letter.discarded', claims));
    if (!discarded) throw notParked(id);
    return { action: 'discarded', deadLetter: discarded };
  }

  private recorder(action: DeadLetterAuditAction, claims: InternalClaims): (deadLetter: DeadLetterSummary) => Promise<void> {
    const actor = auditActorFields(claims);
    return (deadLetter) =>
      recordAuditEvents(this.deps.db, [
        {
          tenantId: null,
          environment: null,
          action,
          actorType: actor.actorType,
          actorId: actor.actorId,
          targetType: 'dead_letter',
          targetId: deadLetter.id,
          metadata: {
            ...actor.metadata,
            queue: deadLetter.queue,
            originalQueue: deadLetter.originalQueue,
            reason: deadLetter.reason,
            messageId: deadLetter.messageId,
            type: deadLetter.type,
          },
        },
      ]);
  }
}
