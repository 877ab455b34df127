import BigNumber from 'bignumber.js';
import {
  checkAmount,
  type Direction,
  type Environment,
  type LedgerPostV1,
  type LedgerResultV1,
  type LedgerWalletStatusV1,
  newId,
} from '@wallet/contracts';
import { currencyNamedBy, mayNotOverdraw } from '../accounts/account-rules';

/** A ledger account as the planner sees it, inside the batch's transaction. */
export interface AccountState {
  id: string;
  /** The account's key on its journal lines. */
  num: string;
  tenantId: string;
  environment: Environment;
  currencyCode: string;
  name: string;
  walletId: string | null;
  normalSide: Direction;
  nonNegative: boolean;
  status: 'active' | 'frozen';
  balance: BigNumber;
}

export type DecodedCommand =
  | { type: 'ledger.post.v1'; commandId: string; payloadHash: string; command: LedgerPostV1 }
  | { type: 'ledger.wallet-status.v1'; commandId: string; payloadHash: string; command: LedgerWalletStatusV1 }
  | { type: 'invalid'; commandId: string; payloadHash: string; tenantId: string; environment: Environment; message: string };

export interface RecordedResult {
  payloadHash: string;
  result: LedgerResultV1;
}

export interface PlannedLine {
  lineNo: number;
  accountId: string;
  direction: Direction;
  amount: BigNumber;
  currencyCode: string;
  balanceAfter: BigNumber;
}

export interface PlannedEntry {
  id: string;
  commandId: string;
  tenantId: string;
  environment: Environment;
  kind: string;
  referenceType: string;
  referenceId: string;
  reversesEntryId: string | null;
  lines: PlannedLine[];
}

export interface CommandOutcome {
  result: LedgerResultV1;
  /** True for a first-time result, which must be recorded with the command id. */
  isNew: boolean;
  payloadHash: string;
}

export interface BatchPlan {
  outcomes: CommandOutcome[];
  entries: PlannedEntry[];
  /** Accounts whose balance or status this batch changed, in their final state. */
  touchedAccounts: AccountState[];
}

export function walletAccountKey(tenantId: string, environment: string, walletId: string): string {
  return `${tenantId}|${environment}|w|${walletId}`;
}

export function systemAccountKey(tenantId: string, environment: string, currencyCode: string, name: string): string {
  return `${tenantId}|${environment}|s|${currencyCode}|${name}`;
}

export function lineAccountKey(
  command: { tenantId: string; environment: string },
  line: { accountName: string; walletId?: string | undefined; currencyCode: string },
): string {
  return line.walletId !== undefined
    ? walletAccountKey(command.tenantId, command.environment, line.walletId)
    : systemAccountKey(command.tenantId, command.environment, line.currencyCode, line.accountName);
}

class Rejection extends Error {
  constructor(
    readonly code: NonNullable<LedgerResultV1['error']>['code'],
    message: string,
  ) {
    super(message);
  }
}

interface PlanInput {
  commands: DecodedCommand[];
  recorded: Map<string, RecordedResult>;
  accounts: Map<string, AccountState>;
  /** `${tenantId}|${environment}|${entryId}` of entries that exist (for reversals). */
  existingEntries: Set<string>;
  now: Date;
}

/**
 * Decides every command of a batch in order, as if each ran alone after the ones before it:
 * balances move in memory, so a rejected command leaves its neighbours untouched and two
 * commands spending the same funds cannot both pass. Pure: the caller writes the plan.
 */
export function planBatch(input: PlanInput): BatchPlan {
  const outcomes: CommandOutcome[] = [];
  const entries: PlannedEntry[] = [];
  const touched = new Map<string, AccountState>();
  const decided = new Map<string, RecordedResult>(input.recorded);
  const processedAt = input.now.toISOString();

  for (const decoded of input.commands) {
    const earlier = decided.get(decoded.commandId);
    if (earlier) {
      if (earlier.payloadHash === decoded.payloadHash) {
        outcomes.push({
          result: { ...earlier.result, duplicate: true, ...traceOf(decoded) },
          isNew: false,
          payloadHash: decoded.payloadHash,
        });
      } else {
        outcomes.push({
          result: rejectedResult(decoded, 'COMMAND_ID_REUSED', 'This commandId was already used for a different command', processedAt),
          isNew: false,
          payloadHash: decoded.payloadHash,
        });
      }
      continue;
    }
    let result: LedgerResultV1;
    if (decoded.type === 'invalid') {
      result = rejectedResult(decoded, 'VALIDATION_ERROR', decoded.message, processedAt);
    } else if (decoded.type === 'ledger.wallet-status.v1') {
      result = applyWalletStatus(decoded.command, input.accounts, touched, processedAt);
    } else {
      try {
        const entry = planEntry(decoded.command, input, touched);
        entries.push(entry);
        input.existingEntries.add(`${entry.tenantId}|${entry.environment}|${entry.id}`);
        result = baseResult(decoded, processedAt, { status: 'posted', journalEntryId: entry.id });
      } catch (error) {
        if (!(error instanceof Rejection)) throw error;
        result = rejectedResult(decoded, error.code, error.message, processedAt);
      }
    }
    result = { ...result, ...traceOf(decoded) };
    decided.set(decoded.commandId, { payloadHash: decoded.payloadHash, result });
    outcomes.push({ result, isNew: true, payloadHash: decoded.payloadHash });
  }
  return { outcomes, entries, touchedAccounts: [...touched.values()] };
}

/** The command's trace context, which its result carries on: whoever finishes the record continues that trace. */
function traceOf(decoded: DecodedCommand): Pick<LedgerResultV1, 'traceparent' | 'tracestate'> {
  if (decoded.type === 'invalid' || decoded.command.traceparent === undefined) return {};
  return decoded.command.tracestate === undefined
    ? { traceparent: decoded.command.traceparent }
    : { traceparent: decoded.command.traceparent, tracestate: decoded.command.tracestate };
}

function baseResult(
  decoded: DecodedCommand,
  processedAt: string,
  outcome: { status: LedgerResultV1['status']; journalEntryId?: string },
): LedgerResultV1 {
  const scope = decoded.type === 'invalid' ? decoded : decoded.command;
  return {
    type: 'ledger.result.v1',
    commandId: decoded.commandId,
    commandType: decoded.type === 'invalid' ? undefined : decoded.type,
    tenantId: scope.tenantId,
    environment: scope.environment,
    status: outcome.status,
    journalEntryId: outcome.journalEntryId ?? null,
    reference: decoded.type === 'ledger.post.v1' ? decoded.command.reference : null,
    error: null,
    duplicate: false,
    processedAt,
  };
}

function rejectedResult(
  decoded: DecodedCommand,
  code: NonNullable<LedgerResultV1['error']>['code'],
  message: string,
  processedAt: string,
): LedgerResultV1 {
  return { ...baseResult(decoded, processedAt, { status: 'rejected' }), error: { code, message } };
}

function applyWalletStatus(
  command: LedgerWalletStatusV1,
  accounts: Map<string, AccountState>,
  touched: Map<string, AccountState>,
  processedAt: string,
): LedgerResultV1 {
  const key = walletAccountKey(command.tenantId, command.environment, command.walletId);
  const account = accounts.get(key);
  if (!account) throw new Error(`wallet account ${key} was not loaded before planning`);
  const base: LedgerResultV1 = {
    type: 'ledger.result.v1',
    commandId: command.commandId,
    commandType: command.type,
    tenantId: command.tenantId,
    environment: command.environment,
    status: 'applied',
    journalEntryId: null,
    reference: null,
    error: null,
    duplicate: false,
    processedAt,
  };
  if (account.currencyCode !== command.currencyCode) {
    return { ...base, status: 'rejected', error: { code: 'CURRENCY_MISMATCH', message: `Wallet account is in ${account.currencyCode}` } };
  }
  if (account.status !== command.status) {
    account.status = command.status;
    touched.set(key, account);
  }
  return base;
}

/** A line may carry an amount of the API's limit plus its fee; far beyond, it is no real posting. */
const LINE_MAX_INTEGER_DIGITS = 24;

function planEntry(command: LedgerPostV1, input: PlanInput, touched: Map<string, AccountState>): PlannedEntry {
  const totals = new Map<string, { debits: BigNumber; credits: BigNumber }>();
  const resolved = command.lines.map((line) => {
    const problem = checkAmount(line.amount, line.currencyCode, { maxIntegerDigits: LINE_MAX_INTEGER_DIGITS });
    if (problem) throw new Rejection('INVALID_AMOUNT', `Line amount ${line.amount} ${line.currencyCode}: ${problem}`);
    const named = currencyNamedBy(line.accountName);
    if (named !== null && named !== line.currencyCode) throw new Rejection('CURRENCY_MISMATCH', `${line.accountName} holds only ${named}`);
    const account = input.accounts.get(lineAccountKey(command, line));
    if (!account) throw new Error(`account for ${line.accountName} was not loaded before planning`);
    if (account.currencyCode !== line.currencyCode)
      throw new Rejection('CURRENCY_MISMATCH', `${line.accountName} is in ${account.currencyCode}, line is in ${line.currencyCode}`);
    if (account.name !== line.accountName)
      throw new Rejection('VALIDATION_ERROR', `Wallet ${line.walletId ?? ''} is account ${account.name}, not ${line.accountName}`);
    if (line.direction === 'DR' && account.status === 'frozen')
      throw new Rejection('WALLET_FROZEN', `${line.accountName} is frozen and cannot be debited`);
    const amount = new BigNumber(line.amount);
    const total = totals.get(line.currencyCode) ?? { debits: new BigNumber(0), credits: new BigNumber(0) };
    if (line.direction === 'DR') total.debits = total.debits.plus(amount);
    else total.credits = total.credits.plus(amount);
    totals.set(line.currencyCode, total);
    return { line, account, amount };
  });
  for (const [currencyCode, total] of totals) {
    if (!total.debits.eq(total.credits)) {
      throw new Rejection(
        'UNBALANCED_ENTRY',
        `${currencyCode} debits ${total.debits.toFixed()} do not equal credits ${total.credits.toFixed()}`,
      );
    }
  }
  if (
    command.reversesEntryId !== undefined &&
    !input.existingEntries.has(`${command.tenantId}|${command.environment}|${command.reversesEntryId}`)
  ) {
    throw new Rejection('JOURNAL_ENTRY_NOT_FOUND', `Entry ${command.reversesEntryId} to reverse does not exist`);
  }

  // Apply on copies first: a rejection must leave every account as it was.
  const after = new Map<string, BigNumber>();
  const lines: PlannedLine[] = resolved.map(({ line, account, amount }, index) => {
    const current = after.get(account.id) ?? account.balance;
    const next = line.direction === account.normalSide ? current.plus(amount) : current.minus(amount);
    after.set(account.id, next);
    return {
      lineNo: index + 1,
      accountId: account.id,
      direction: line.direction,
      amount,
      currencyCode: line.currencyCode,
      balanceAfter: next,
    };
  });
  for (const { line, account } of resolved) {
    const balance = after.get(account.id) as BigNumber;
    if (balance.isNegative() && (account.nonNegative || mayNotOverdraw(command.kind, line.accountName))) {
      throw new Rejection('INSUFFICIENT_FUNDS', `${line.accountName} would go below zero`);
    }
  }
  for (const { line, account } of resolved) {
    account.balance = after.get(account.id) as BigNumber;
    touched.set(lineAccountKey(command, line), account);
  }
  return {
    id: newId('journalEntry'),
    commandId: command.commandId,
    tenantId: command.tenantId,
    environment: command.environment,
    kind: command.kind,
    referenceType: command.reference.type,
    referenceId: command.reference.id,
    reversesEntryId: command.reversesEntryId ?? null,
    lines,
  };
}
