import {
  type AddFeeRuleBody,
  type FeeQuote,
  type FeeQuoteQuery,
  type FeeRule,
  type FeeSchedule,
  type FeeScheduleListQuery,
  type FeeScheduleOrigin,
  type FeeScheduleWithRules,
  formatAmount,
  newId,
  type Page,
  type PublishFeeScheduleBody,
} from '@wallet/contracts';
import {
  AppError,
  auditActorFieldsOf,
  auditRecordMessage,
  cursorFields,
  type Db,
  decodeCursor,
  encodeCursor,
  enqueueOutbox,
  type InternalClaims,
  type OutboxRelay,
  type Tx,
} from '@wallet/kit';
import { bandsOverlap } from './fee-calculator';
import { parseRuleInput, termsOf, toFeeRule } from './fee-rules';
import {
  findDefaultSchedule,
  deleteRule,
  findSchedule,
  insertRule,
  insertSchedule,
  listSchedules,
  lockTenantDefault,
  markPublished,
  rulesOf,
  type StoredSchedule,
} from './fees-store';
import { quoteFee } from './quote-fee';

export interface FeesDeps {
  db: Db;
  relay: OutboxRelay;
}

/**
 * Who acts: the tenant the schedules belong to, the surface (the platform operator on
 * `system`, the tenant itself on `tenant`) and the claims, for the audit trail. Schedules are
 * shared by both environments of the tenant.
 */
export interface FeeCaller {
  tenantId: string;
  surface: FeeScheduleOrigin;
  claims: InternalClaims;
}

export interface NewSchedule {
  name: string;
  isDefault: boolean;
  /** The platform operator's only; a tenant's schedule inherits it. */
  platformCommissionBps?: number;
  /** A schedule of the same tenant whose rules the draft starts with. */
  copyRulesFrom?: string | undefined;
}

function toSchedule(schedule: StoredSchedule): FeeSchedule {
  return {
    id: schedule.id,
    tenantId: schedule.tenantId,
    name: schedule.name,
    platformCommissionBps: schedule.platformCommissionBps,
    status: schedule.status,
    isDefault: schedule.isDefault,
    defaultOnPublish: schedule.defaultOnPublish,
    origin: schedule.origin,
    createdBy: schedule.createdBy,
    publishedAt: schedule.publishedAt?.toISOString() ?? null,
    publishedBy: schedule.publishedBy,
    createdAt: schedule.createdAt.toISOString(),
  };
}

const scheduleNotFound = () => new AppError('FEE_SCHEDULE_NOT_FOUND', 'No such fee schedule');
const schedulePublished = (scheduleId: string) =>
  new AppError('FEE_SCHEDULE_PUBLISHED', 'A published fee schedule cannot be changed; create a new schedule', { scheduleId });

/** A rule as the audit records it: its id and every term, so a removed rule can be told from the trail alone. */
function auditedRule(rule: FeeRule): Record<string, unknown> {
  return {
    ruleId: rule.id,
    transactionType: rule.transactionType,
    currencyCode: rule.currencyCode,
    minAmount: rule.minAmount,
    maxAmount: rule.maxAmount,
    flatFee: rule.flatFee,
    percentageFee: rule.percentageFee,
    minFee: rule.minFee,
    maxFee: rule.maxFee,
  };
}

/** Copies every rule of one schedule into a new draft, in their order, each under a new id. */
async function copyRules(tx: Tx, fromScheduleId: string, toScheduleId: string): Promise<FeeRule[]> {
  const copies: FeeRule[] = [];
  for (const rule of await rulesOf(tx, fromScheduleId)) {
    const { seq: _seq, createdAt: _createdAt, ...terms } = rule;
    copies.push(toFeeRule(await insertRule(tx, { ...terms, id: newId('feeRule'), scheduleId: toScheduleId })));
  }
  return copies;
}

/** Locks a draft of the caller's tenant for a change of its rules: another tenant's is not found, a published one refused. */
async function lockDraft(tx: Tx, tenantId: string, scheduleId: string): Promise<StoredSchedule> {
  const schedule = await findSchedule(tx, tenantId, scheduleId, { forUpdate: true });
  if (!schedule) throw scheduleNotFound();
  if (schedule.status !== 'draft') throw schedulePublished(scheduleId);
  return schedule;
}

/**
 * Fee schedules and their rules: drafts take rules whose bands never overlap, publishing
 * freezes them and may move the tenant's default. Every change is audited in its own
 * transaction through the outbox.
 */
export class FeesService {
  constructor(private readonly deps: FeesDeps) {}

  /**
   * A draft schedule. The platform operator sets its commission; a tenant's schedule takes the
   * commission of the tenant's default schedule (0 without one), and takes it again when it is
   * published, so a draft cannot keep a rate the platform has since changed.
   */
  async createSchedule(caller: FeeCaller, input: NewSchedule): Promise<FeeScheduleWithRules> {
    const createdBy = auditActorFieldsOf(caller.claims).actorId;
    const result = await this.deps.db.transaction(async (tx) => {
      const source = input.copyRulesFrom === undefined ? null : await findSchedule(tx, caller.tenantId, input.copyRulesFrom);
      if (input.copyRulesFrom !== undefined && !source) throw scheduleNotFound();
      const platformCommissionBps =
        caller.surface === 'system'
          ? (input.platformCommissionBps ?? 0)
          : ((await findDefaultSchedule(tx, caller.tenantId))?.platformCommissionBps ?? 0);
      const stored = await insertSchedule(tx, {
        id: newId('feeSchedule'),
        tenantId: caller.tenantId,
        name: input.name,
        platformCommissionBps,
        defaultOnPublish: input.isDefault,
        origin: caller.surface,
        createdBy,
      });
      // The source's bands never overlap, so its copies need no check against each other.
      const rules = source ? await copyRules(tx, source.id, stored.id) : [];
      await this.audit(tx, caller, 'fee_schedule.created', 'fee_schedule', stored.id, {
        name: stored.name,
        platformCommissionBps,
        isDefault: input.isDefault,
        origin: stored.origin,
        ...(source ? { copiedRulesFrom: source.id, ruleCount: rules.length } : {}),
      });
      return { ...toSchedule(stored), rules };
    });
    this.deps.relay.wake();
    return result;
  }

  async listSchedules(tenantId: string, query: FeeScheduleListQuery): Promise<Page<FeeSchedule>> {
    const position = decodeCursor(query.cursor, { seq: cursorFields.seq });
    const rows = await listSchedules(this.deps.db, { tenantId, status: query.status, beforeSeq: position?.seq, limit: query.limit });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return { data: page.map(toSchedule), nextCursor: rows.length > query.limit && last ? encodeCursor({ seq: last.seq }) : null };
  }

  async getSchedule(tenantId: string, id: string): Promise<FeeScheduleWithRules> {
    const schedule = await findSchedule(this.deps.db, tenantId, id);
    if (!schedule) throw scheduleNotFound();
    return { ...toSchedule(schedule), rules: (await rulesOf(this.deps.db, schedule.id)).map(toFeeRule) };
  }

  /**
   * Adds a rule to a draft. The schedule's row is locked first, so concurrent additions to one
   * schedule check their bands one after the other (one of two overlapping rules wins), and a
   * rule never slips into a schedule being published.
   */
  async addRule(caller: FeeCaller, scheduleId: string, body: AddFeeRuleBody): Promise<FeeRule> {
    const input = parseRuleInput(body);
    const rule = await this.deps.db.transaction(async (tx) => {
      const schedule = await lockDraft(tx, caller.tenantId, scheduleId);
      const siblings = await rulesOf(tx, schedule.id, { transactionType: input.transactionType, currencyCode: input.currencyCode });
      const clash = siblings.find((sibling) => bandsOverlap(termsOf(sibling), input.terms));
      if (clash) {
        throw new AppError(
          'OVERLAPPING_FEE_RULE',
          `The amount band overlaps rule ${clash.id} for ${input.transactionType} in ${input.currencyCode}`,
          {
            ruleId: clash.id,
            minAmount: clash.minAmount === null ? null : formatAmount(clash.minAmount, clash.currencyCode),
            maxAmount: clash.maxAmount === null ? null : formatAmount(clash.maxAmount, clash.currencyCode),
          },
        );
      }
      const stored = await insertRule(tx, {
        id: newId('feeRule'),
        scheduleId: schedule.id,
        transactionType: input.transactionType,
        currencyCode: input.currencyCode,
        ...input.text,
      });
      const rule = toFeeRule(stored);
      // On the schedule, so its audit trail (targetId = the schedule) tells its whole history.
      await this.audit(tx, caller, 'fee_schedule.rule_added', 'fee_schedule', schedule.id, auditedRule(rule));
      return rule;
    });
    this.deps.relay.wake();
    return rule;
  }

  /**
   * Removes a rule from a draft, under the same lock as additions and publishing, so a rule is
   * never removed from a schedule being published. Answers the schedule with its remaining rules.
   */
  async removeRule(caller: FeeCaller, scheduleId: string, ruleId: string): Promise<FeeScheduleWithRules> {
    const result = await this.deps.db.transaction(async (tx) => {
      const schedule = await lockDraft(tx, caller.tenantId, scheduleId);
      const removed = await deleteRule(tx, schedule.id, ruleId);
      if (!removed) throw new AppError('FEE_RULE_NOT_FOUND', 'The fee schedule has no such rule', { scheduleId, ruleId });
      await this.audit(tx, caller, 'fee_schedule.rule_removed', 'fee_schedule', schedule.id, auditedRule(toFeeRule(removed)));
      return { ...toSchedule(schedule), rules: (await rulesOf(tx, schedule.id)).map(toFeeRule) };
    });
    this.deps.relay.wake();
    return result;
  }

  /**
   * draft -> published. `makeDefault` (else the isDefault asked for at creation) makes it the
   * tenant's default in the same transaction that takes the flag from the previous one; changes
   * of a tenant's default are serialized, so two concurrent publishes leave exactly one default.
   */
  async publish(caller: FeeCaller, scheduleId: string, body: PublishFeeScheduleBody): Promise<FeeScheduleWithRules> {
    const result = await this.deps.db.transaction(async (tx) => {
      const schedule = await findSchedule(tx, caller.tenantId, scheduleId, { forUpdate: true });
      if (!schedule) throw scheduleNotFound();
      if (schedule.status !== 'draft')
        throw new AppError('FEE_SCHEDULE_PUBLISHED', 'The fee schedule is already published', {
          scheduleId,
          publishedAt: schedule.publishedAt?.toISOString() ?? null,
        });
      const makeDefault = body.makeDefault ?? schedule.defaultOnPublish;
      await lockTenantDefault(tx, caller.tenantId);
      const previousDefault = await findDefaultSchedule(tx, caller.tenantId);
      const platformCommissionBps =
        schedule.origin === 'tenant' ? (previousDefault?.platformCommissionBps ?? 0) : schedule.platformCommissionBps;
      const publishedBy = auditActorFieldsOf(caller.claims).actorId;
      const published = await markPublished(tx, schedule, { makeDefault, platformCommissionBps, publishedBy });
      const rules = await rulesOf(tx, schedule.id);
      await this.audit(tx, caller, 'fee_schedule.published', 'fee_schedule', schedule.id, {
        makeDefault,
        platformCommissionBps,
        ruleCount: rules.length,
        ...(makeDefault ? { previousDefaultScheduleId: previousDefault?.id ?? null } : {}),
      });
      return { ...toSchedule(published), rules: rules.map(toFeeRule) };
    });
    this.deps.relay.wake();
    return result;
  }

  /** GET /v1/fees/quote: the same computation payments charges with (quoteFee). */
  async quote(tenantId: string, query: FeeQuoteQuery): Promise<FeeQuote> {
    const result = await quoteFee(this.deps.db, tenantId, query.transactionType, query.currencyCode, query.amount);
    return {
      transactionType: query.transactionType,
      currencyCode: query.currencyCode,
      amount: formatAmount(query.amount, query.currencyCode),
      fee: result.fee,
      scheduleId: result.scheduleId,
      ruleId: result.ruleId,
    };
  }

  private async audit(
    tx: Tx,
    caller: FeeCaller,
    action: string,
    targetType: string,
    targetId: string,
    metadata: Record<string, unknown>,
  ): Promise<void> {
    const actor = auditActorFieldsOf(caller.claims);
    await enqueueOutbox(tx, [
      auditRecordMessage({
        tenantId: caller.tenantId,
        // Fee schedules serve both environments, so their trail shows in both.
        environment: null,
        action,
        actorType: actor.actorType,
        actorId: actor.actorId,
        targetType,
        targetId,
        metadata: { ...actor.metadata, surface: caller.surface, ...metadata },
      }),
    ]);
  }
}
