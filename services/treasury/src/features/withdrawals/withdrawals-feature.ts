import { withdrawalRoutes } from '@wallet/contracts';
import { type Features, idempotency, type ServiceConfig, type ServiceParts, type TenantDirectory } from '@wallet/kit';
import {
  caseMovement,
  type DeliveredCases,
  type MemberDirectory,
  moneyFeature,
  type Postings,
  railConfig,
  startCaseDelivery,
} from '@wallet/money-commands';
import type { peersConfigShape } from '../../peers';
import { withdrawalPostCommand } from './withdrawal-posting';
import { withdrawalRecords } from './withdrawal-records';
import { withdrawalsRouter } from './withdrawals-router';
import { WITHDRAWAL_CASES, WithdrawalsService } from './withdrawals-service';
import { DELIVERABLE_WITHDRAWAL_READ, type DeliverableWithdrawal, WITHDRAWAL } from './withdrawals-store';

/** TREASURY_WITHDRAWAL_RAIL, its _INTERVAL_MS, _BATCH_SIZE, _LEASE_MS and _CRASH_AFTER_DELIVERY, and TREASURY_SANDBOX_RAIL_DELAY_MS. */
const WITHDRAWAL_RAIL = railConfig('TREASURY_WITHDRAWAL_RAIL', 'TREASURY_SANDBOX_RAIL_DELAY_MS');

type WithdrawalsConfig = ServiceConfig<Pick<typeof peersConfigShape, 'TREASURY_POSTING_REPLY_TIMEOUT_MS'> & typeof WITHDRAWAL_RAIL.shape>;

/** Approved withdrawals through the rail, as payouts go: the outcome's command moves payout clearing to the rail's clearing, or back to the source. */
const WITHDRAWAL_DELIVERY: DeliveredCases<DeliverableWithdrawal> = {
  table: WITHDRAWAL.table,
  noun: 'withdrawal',
  read: DELIVERABLE_WITHDRAWAL_READ,
  command: withdrawalPostCommand,
};

/** Their service, routes and delivery through the rail (the postings get their finisher from treasury's list, src/movements.ts). */
function startWithdrawals(
  parts: ServiceParts<WithdrawalsConfig>,
  deps: { postings: Postings; tenants: TenantDirectory; members: MemberDirectory },
): Features {
  const { config, db, relay, logger } = parts;
  const withdrawals = new WithdrawalsService({
    db,
    relay,
    postings: deps.postings,
    members: deps.members,
    tenants: deps.tenants,
    replyTimeoutMs: config.TREASURY_POSTING_REPLY_TIMEOUT_MS,
  });
  const delivery = startCaseDelivery({ db, relay, logger }, WITHDRAWAL_DELIVERY, WITHDRAWAL_RAIL.settingsOf(config));
  return {
    stop: () => delivery.stop(),
    routes: (app) =>
      app.use(
        withdrawalsRouter(withdrawals, {
          create: idempotency({ db, required: true, logger }),
          // Optional on decisions: with a key a retried decision replays its answer; without one
          // a second decision is 409 CASE_NOT_PENDING either way.
          decide: idempotency({ db, required: false, logger }),
        }),
      ),
  };
}

/**
 * Withdrawal cases, requested by a maker, decided by a checker and delivered by the rail. Their
 * deadline is the service's (src/peers.ts), their delivery's variables their own.
 */
export const WITHDRAWALS_FEATURE = moneyFeature({
  movements: [
    caseMovement(WITHDRAWAL_CASES, {
      source: withdrawalRecords,
      routes: [withdrawalRoutes.create, withdrawalRoutes.approve, withdrawalRoutes.reject],
    }),
  ],
  config: WITHDRAWAL_RAIL.shape,
  start: startWithdrawals,
});
