import { type Features, idempotency, type ServiceConfig, type ServiceParts, type TenantDirectory } from '@wallet/kit';
import { type MemberDirectory, type Postings } from '@wallet/money-commands';
import type { peersConfigShape } from '../../peers';
import { withdrawalsRouter } from './withdrawals-router';
import { WithdrawalsService } from './withdrawals-service';

type WithdrawalsConfig = ServiceConfig<Pick<typeof peersConfigShape, 'TREASURY_POSTING_REPLY_TIMEOUT_MS'>>;

/** Withdrawal cases: their routes (src/movements.ts hands the postings their finisher). */
export function startWithdrawals(
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
