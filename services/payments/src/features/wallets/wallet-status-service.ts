import { type LedgerResultV1, newId, type WalletStatus } from '@wallet/contracts';
import {
  AppError,
  auditActorFieldsOf,
  auditRecordMessage,
  currentContext,
  type Db,
  enqueueOutbox,
  type InternalClaims,
  type Logger,
  type OutboxRelay,
  runWithContext,
} from '@wallet/kit';
import {
  type LedgerCommands,
  LedgerReplyTimeout,
  LedgerUnreachable,
  walletOpeningCommandId,
  walletStatusCommand,
} from '../ledger/ledger-commands';
import {
  claimStatusChange,
  findPendingStatusChange,
  listPendingStatusChanges,
  settleStatusChange,
  type StatusChange,
} from './wallet-status-store';
import { walletEventMessage } from './wallets-service';
import {
  findWallet,
  findWalletForUpdate,
  markLedgerOpened,
  type StoredWallet,
  updateWalletStatus,
  type WalletScope,
} from './wallets-store';

/** Rounds of "settle the change in the way, then claim" before giving up on a contended wallet. */
const CLAIM_ATTEMPTS_MAX = 3;

export interface StatusCaller {
  scope: WalletScope;
  claims: InternalClaims;
}

export interface WalletStatusDeps {
  db: Db;
  relay: OutboxRelay;
  commands: LedgerCommands;
  logger: Logger;
}

const AUDIT_ACTIONS: Record<WalletStatus, string> = { frozen: 'wallet.frozen', active: 'wallet.unfrozen' };

/**
 * Freezing and unfreezing. The ledger enforces a freeze (it refuses debits of a frozen account
 * atomically with postings), so a change is sent to it and its answer awaited before payments
 * records the new status: once a freeze is answered, no later send can pass.
 *
 * Order: a wallet has at most one pending change, claimed before it is sent and settled when the
 * ledger's answer is recorded. The next change is claimed only after that, so the ledger applies
 * a wallet's changes in the order payments decided them. A change whose answer missed the
 * deadline stays pending (the request answers 503, the status is unchanged) and is re-sent
 * under its own command id, by the next request for the wallet or by the retrier, until the
 * ledger's answer (the original one, if it had applied it meanwhile) is recorded: payments ends
 * where the ledger is.
 */
export class WalletStatusService {
  constructor(private readonly deps: WalletStatusDeps) {}

  /** The wallet with the status asked for; unchanged (and no audit record) when it already had it. */
  async change(caller: StatusCaller, walletId: string, toStatus: WalletStatus, reason: string): Promise<StoredWallet> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS_MAX; attempt += 1) {
      const wallet = await findWallet(this.deps.db, caller.scope, walletId);
      if (!wallet) throw new AppError('WALLET_NOT_FOUND', 'No such wallet');
      const pending = await findPendingStatusChange(this.deps.db, wallet.id);
      if (pending) {
        await this.settle(wallet, pending);
        continue;
      }
      if (wallet.status === toStatus) return wallet;
      await this.ensureOpened(wallet);
      const actor = auditActorFieldsOf(caller.claims);
      const change = await claimStatusChange(this.deps.db, {
        commandId: newId('command'),
        walletId: wallet.id,
        tenantId: wallet.tenantId,
        environment: wallet.environment,
        toStatus,
        reason,
        actorType: actor.actorType,
        actorId: actor.actorId,
        actorMetadata: actor.metadata,
        correlationId: currentContext()?.correlationId ?? null,
      });
      if (change) return this.settle(wallet, change);
    }
    throw new AppError('SERVICE_UNAVAILABLE', 'The wallet is changing status under other requests; retry shortly');
  }

  /**
   * Re-sends the changes whose requester stopped waiting (a missed deadline, a crash between
   * claim and send) and records the ledger's answers. Returns how many were settled.
   */
  async settleAbandoned(olderThan: Date, limit: number): Promise<number> {
    let settled = 0;
    for (const change of await listPendingStatusChanges(this.deps.db, olderThan, limit)) {
      const wallet = await findWallet(this.deps.db, { tenantId: change.tenantId, environment: change.environment }, change.walletId);
      if (!wallet) throw new Error(`status change ${change.commandId} names a missing wallet ${change.walletId}`);
      try {
        await runWithContext({ correlationId: change.correlationId ?? change.commandId }, () => this.settle(wallet, change));
        settled += 1;
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE')) throw error;
        this.deps.logger.debug({ commandId: change.commandId }, 'wallet status change still unanswered');
      }
    }
    return settled;
  }

  /**
   * The wallet's account is opened by a command sent through the outbox when the wallet was
   * created. Before the first change, that same command (same id, same payload) is sent again
   * and its answer awaited: whichever copy the ledger takes first opens the account, the other
   * is a duplicate, so a late opening can never reset a freeze to active.
   */
  private async ensureOpened(wallet: StoredWallet): Promise<void> {
    if (wallet.ledgerOpenedAt) return;
    const result = await this.send(walletStatusCommand(wallet, 'active', walletOpeningCommandId(wallet.id)));
    if (result.status !== 'applied') throw new Error(`ledger refused to open wallet ${wallet.id}: ${result.error?.code ?? result.status}`);
    await markLedgerOpened(this.deps.db, wallet.id);
  }

  private async settle(wallet: StoredWallet, change: StatusChange): Promise<StoredWallet> {
    const result = await this.send(walletStatusCommand(wallet, change.toStatus, change.commandId));
    const applied = result.status === 'applied';
    const after = await this.deps.db.transaction(async (tx) => {
      const current = await findWalletForUpdate(tx, wallet, wallet.id);
      if (!current) throw new Error(`wallet ${wallet.id} vanished while its status changed`);
      const settledHere = await settleStatusChange(tx, change.commandId, applied ? 'applied' : 'rejected');
      if (!settledHere || !applied || current.status === change.toStatus) return current;
      const updated = await updateWalletStatus(tx, current.id, change.toStatus);
      await enqueueOutbox(tx, [
        this.auditRecord(change, current.status, updated, result),
        walletEventMessage(updated, updated.status === 'frozen' ? 'wallet.frozen' : 'wallet.unfrozen'),
      ]);
      return updated;
    });
    this.deps.relay.wake();
    if (!applied)
      throw new Error(`ledger refused status change ${change.commandId} of wallet ${wallet.id}: ${result.error?.code ?? result.status}`);
    return after;
  }

  private auditRecord(change: StatusChange, before: WalletStatus, wallet: StoredWallet, result: LedgerResultV1) {
    return auditRecordMessage({
      tenantId: wallet.tenantId,
      environment: wallet.environment,
      action: AUDIT_ACTIONS[change.toStatus],
      actorType: change.actorType,
      actorId: change.actorId,
      targetType: 'wallet',
      targetId: wallet.id,
      metadata: {
        ...change.actorMetadata,
        reason: change.reason,
        before: { status: before },
        after: { status: wallet.status },
        ...(change.correlationId ? { correlationId: change.correlationId } : {}),
      },
      // When the ledger applied it: from then on the freeze held.
      occurredAt: result.processedAt,
    });
  }

  private async send(command: Parameters<LedgerCommands['request']>[0]): Promise<LedgerResultV1> {
    try {
      return await this.deps.commands.request(command);
    } catch (error) {
      if (error instanceof LedgerReplyTimeout || error instanceof LedgerUnreachable) {
        this.deps.logger.warn({ err: error, commandId: command.commandId }, 'ledger did not answer a wallet status command');
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'The ledger did not confirm the change in time. It may still take effect; until it is confirmed the wallet shows its earlier status. Retrying is safe',
          { walletId: command.walletId },
        );
      }
      throw error;
    }
  }
}
