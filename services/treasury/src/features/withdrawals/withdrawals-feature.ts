import { withdrawalRoutes } from '@wallet/contracts';
import { type Features, idempotency, type ServiceConfig, type ServiceParts, type TenantDirectory } from '@wallet/kit';
import { caseMovement, type MemberDirectory, moneyFeature, type Postings } from '@wallet/money-commands';
import type { peersConfigShape } from '../../peers';
import { withdrawalRecords } from './withdrawal-records';
import { withdrawalsRouter } from './withdrawals-router';
import { WITHDRAWAL_CASES, WithdrawalsService } from './withdrawals-service';

type WithdrawalsConfig = ServiceConfig<Pick<typeof peersConfigShape, 'TREASURY_POSTING_REPLY_TIMEOUT_MS'>>;

/** Their service and routes (the postings get their finisher from treasury's list, src/movements.ts). */
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
  return {
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

/** Withdrawal cases, requested by a maker and decided by a checker. Their deadline is the service's (src/peers.ts). */
export const WITHDRAWALS_FEATURE = moneyFeature({
  movements: [
    caseMovement(WITHDRAWAL_CASES, {
      source: withdrawalRecords,
      routes: [withdrawalRoutes.create, withdrawalRoutes.approve, withdrawalRoutes.reject],
    }),
  ],
  config: {},
  start: startWithdrawals,
});
