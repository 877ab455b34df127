import { type Environment, formatAmount, type LedgerPostV1, newId } from '@wallet/contracts';
import { type Db, prepared, sqlArray } from '@wallet/kit';
import type { Knex } from 'knex';
import { decodeMessage, processBatch } from '../../services/ledger/src/features/posting/posting-service';
import type { DecodedCommand } from '../../services/ledger/src/features/posting/posting-planner';
import { quoteFromTerms } from '../../services/payments/src/features/fees/quote-fee';
import { transferPostCommand } from '../../services/payments/src/features/transfers/transfer-posting';
import { findTransferContext, type NewTransfer, type TransferWallet } from '../../services/payments/src/features/transfers/transfers-store';

/**
 * A long history of completed transfers, written in bulk through the services' own code: each
 * transfer is drafted as payments drafts it (its fee quoted from the tenant's default terms, its
 * posting command built by payments' transferPostCommand), the commands are decoded as the
 * ledger's consumer decodes them and posted by the ledger's processBatch in large batches (one
 * transaction each: entries, lines, balances, results and the outbox events that feed payments'
 * and treasury's read models, relayed by the running ledger), and each transfer is then
 * recorded in payments as completed with the entry the ledger posted, the row payments leaves
 * once the ledger's answer is in. Nothing is written that the running system would not write;
 * what the history lacks is what a retention window would have purged by then (idempotency
 * keys, nonces, request logs older than a month; the last month's are written beside it,
 * request-log-history.ts).
 */

export interface HistoryTenant {
  tenantId: string;
  environment: Environment;
  wallets: TransferWallet[];
  /** Journal lines to write for this tenant. */
  lines: number;
}

export interface HistoryOptions {
  ledgerDb: Db;
  paymentsDb: Db;
  /** Transfers per ledger transaction. */
  batchSize: number;
  currencyCode: string;
  /** Stop after this many transfers, lines or not. */
  maxTransfers?: number;
  /** Told after each batch: lines written so far. */
  onProgress?: (lines: number) => void;
}

export interface HistoryFigures {
  transfers: number;
  lines: number;
  seconds: number;
  /** When half of the lines had been written: a moment in the middle of the history. */
  middleAt: Date;
  /** Journal lines each wallet got. */
  linesByWallet: Map<string, number>;
  /** Where the time went: drafting and decoding commands here, the ledger's processBatch, waiting for payments' rows. */
  split: { draftSeconds: number; postSeconds: number; recordWaitSeconds: number };
}

interface Draft {
  scope: { tenantId: string; environment: Environment };
  transfer: NewTransfer;
  command: LedgerPostV1;
}

/** Amounts as the end-to-end benchmark sends them: 1.00-9.00. */
function randomAmount(): string {
  return `${1 + Math.floor(Math.random() * 9)}.00`;
}

function pickTwo<T>(items: readonly T[]): [T, T] {
  const first = Math.floor(Math.random() * items.length);
  let second = Math.floor(Math.random() * (items.length - 1));
  if (second >= first) second += 1;
  return [items[first] as T, items[second] as T];
}

/** The transfer payments would draft for this pair and amount, with its posting command. */
function draftTransfer(
  tenant: HistoryTenant,
  terms: Awaited<ReturnType<typeof findTransferContext>>['terms'],
  currencyCode: string,
): Draft {
  const [from, to] = pickTwo(tenant.wallets);
  const amount = formatAmount(randomAmount(), currencyCode);
  const quote = quoteFromTerms(terms, 'transfer', currencyCode, amount);
  const id = newId('transfer');
  const scope = { tenantId: tenant.tenantId, environment: tenant.environment };
  const transfer: NewTransfer = {
    id,
    fromWalletId: from.id,
    toWalletId: to.id,
    currencyCode,
    amount,
    fee: quote.fee,
    commission: quote.commission,
    feeScheduleId: quote.scheduleId,
    feeRuleId: quote.ruleId,
    platformCommissionBps: quote.platformCommissionBps,
    description: null,
    createdAt: new Date(),
  };
  const command = transferPostCommand({ ...scope, id, currencyCode, amount, fee: quote.fee, commission: quote.commission }, from, to);
  return { scope, transfer, command };
}

/** A command as the ledger's consumer decodes it off the queue (schema, payload hash). */
function decode(command: LedgerPostV1): DecodedCommand {
  const decoded = decodeMessage(Buffer.from(JSON.stringify(command)), undefined);
  if (decoded.type !== 'commands' || decoded.commands.length !== 1) throw new Error(`command ${command.commandId} did not decode`);
  return (decoded.commands[0] as { command: DecodedCommand }).command;
}

/**
 * The transfers as payments holds them once the ledger's answer is recorded: completed, with the
 * entry and the moment it finished (the columns of insertTransfersWithCommands, then those
 * finishTransfers sets).
 */
async function recordCompleted(db: Db, drafts: readonly Draft[], entryIds: readonly string[], finishedAt: Date): Promise<void> {
  await prepared(
    db,
    `INSERT INTO transfers (id, tenant_id, environment, from_wallet_id, to_wallet_id, currency_code, amount, fee, commission,
                            fee_schedule_id, fee_rule_id, platform_commission_bps, description, created_at,
                            status, journal_entry_id, failure_code, finished_at)
     SELECT t.id, t.tenant_id, t.environment, t.from_wallet_id, t.to_wallet_id, t.currency_code, t.amount, t.fee, t.commission,
            t.fee_schedule_id, t.fee_rule_id, t.platform_commission_bps, t.description, t.created_at,
            'completed', t.journal_entry_id, NULL, ?::timestamptz
       FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::numeric[], ?::numeric[],
                   ?::text[], ?::text[], ?::integer[], ?::text[], ?::timestamptz[], ?::text[])
         WITH ORDINALITY AS t(id, tenant_id, environment, from_wallet_id, to_wallet_id, currency_code, amount, fee, commission,
                              fee_schedule_id, fee_rule_id, platform_commission_bps, description, created_at, journal_entry_id, position)
      ORDER BY t.position`,
    [
      finishedAt.toISOString(),
      drafts.map((draft) => draft.transfer.id),
      drafts.map((draft) => draft.scope.tenantId),
      drafts.map((draft) => draft.scope.environment),
      drafts.map((draft) => draft.transfer.fromWalletId),
      drafts.map((draft) => draft.transfer.toWalletId),
      drafts.map((draft) => draft.transfer.currencyCode),
      drafts.map((draft) => draft.transfer.amount),
      drafts.map((draft) => draft.transfer.fee),
      drafts.map((draft) => draft.transfer.commission),
      sqlArray(drafts.map((draft) => draft.transfer.feeScheduleId)),
      sqlArray(drafts.map((draft) => draft.transfer.feeRuleId)),
      drafts.map((draft) => draft.transfer.platformCommissionBps),
      sqlArray(drafts.map((draft) => draft.transfer.description)),
      drafts.map((draft) => draft.transfer.createdAt.toISOString()),
      [...entryIds],
    ] as unknown as readonly Knex.RawBinding[],
  );
}

/** Chooses each transfer's tenant in proportion to the lines it still needs, so the tenants' entries interleave as they would. */
function tenantPicker(tenants: readonly HistoryTenant[], remaining: number[]): () => number {
  return () => {
    const total = remaining.reduce((sum, lines) => sum + Math.max(0, lines), 0);
    let point = Math.random() * total;
    for (const [index, lines] of remaining.entries()) {
      point -= Math.max(0, lines);
      if (point < 0) return index;
    }
    return tenants.length - 1;
  };
}

/**
 * Writes transfers until every tenant has its lines. Batches are posted one after the other;
 * payments' rows of a batch are written while the ledger posts the next. (Drafting the next
 * batch while the ledger posted one was tried and gained nothing: on two cores the build is
 * CPU-bound, and the ledger's processBatch is most of its time.)
 */
export async function buildHistory(options: HistoryOptions, tenants: readonly HistoryTenant[]): Promise<HistoryFigures> {
  const terms = await Promise.all(
    tenants.map(async (tenant) => (await findTransferContext(options.paymentsDb, tenant, [], options.currencyCode)).terms),
  );
  const remaining = tenants.map((tenant) => tenant.lines);
  const pick = tenantPicker(tenants, remaining);
  const goal = remaining.reduce((sum, lines) => sum + lines, 0);
  const linesByWallet = new Map<string, number>();
  let lines = 0;
  let transfers = 0;
  let middleAt: Date | null = null;
  let recording: Promise<void> = Promise.resolve();
  const maxTransfers = options.maxTransfers ?? Number.POSITIVE_INFINITY;
  const more = (drafted: number) => transfers + drafted < maxTransfers && remaining.some((left) => left > 0);
  const started = performance.now();
  const split = { draftSeconds: 0, postSeconds: 0, recordWaitSeconds: 0 };
  let mark = performance.now();
  const lap = (part: keyof typeof split): void => {
    const now = performance.now();
    split[part] += (now - mark) / 1000;
    mark = now;
  };
  while (more(0)) {
    const drafts: Draft[] = [];
    while (drafts.length < options.batchSize && more(drafts.length)) {
      const index = pick();
      const draft = draftTransfer(tenants[index] as HistoryTenant, terms[index] as (typeof terms)[number], options.currencyCode);
      remaining[index] = (remaining[index] as number) - draft.command.lines.length;
      drafts.push(draft);
    }
    const commands = drafts.map((draft) => decode(draft.command));
    lap('draftSeconds');
    const outcomes = await processBatch(options.ledgerDb, commands);
    lap('postSeconds');
    const finishedAt = new Date();
    const posted = new Map(outcomes.map((outcome) => [outcome.result.commandId, outcome.result]));
    const entryIds = drafts.map((draft) => {
      const result = posted.get(draft.command.commandId);
      if (result?.status !== 'posted' || !result.journalEntryId)
        throw new Error(`the ledger did not post transfer ${draft.transfer.id}: ${JSON.stringify(result)}`);
      return result.journalEntryId;
    });
    await recording;
    lap('recordWaitSeconds');
    recording = recordCompleted(options.paymentsDb, drafts, entryIds, finishedAt);
    for (const draft of drafts) {
      lines += draft.command.lines.length;
      for (const line of draft.command.lines)
        if (line.walletId) linesByWallet.set(line.walletId, (linesByWallet.get(line.walletId) ?? 0) + 1);
    }
    transfers += drafts.length;
    if (middleAt === null && lines >= goal / 2) middleAt = finishedAt;
    options.onProgress?.(lines);
  }
  await recording;
  lap('recordWaitSeconds');
  return { transfers, lines, seconds: (performance.now() - started) / 1000, middleAt: middleAt ?? new Date(), linesByWallet, split };
}
