import { type Features, idempotency, type ServiceConfig, type ServiceParts, type TenantDirectory } from '@wallet/kit';
import { type MemberDirectory, type Postings } from '@wallet/money-commands';
import { z } from 'zod';
import type { floatDepositsConfigShape } from '../float-deposits/float-deposits-feature';
import { WITHDRAWAL_REFERENCE_TYPE } from './withdrawal-posting';
import { withdrawalsRouter } from './withdrawals-router';
import { WithdrawalsService } from './withdrawals-service';

export const withdrawalsConfigShape = {
  /** Identity answers who the maker and the checker are (status, role, scopes). */
  IDENTITY_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8091'),
  /** Connecting to identity, its answer and its body, per member lookup. */
  TREASURY_IDENTITY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3_000),
};

type WithdrawalsConfig = ServiceConfig<
  typeof withdrawalsConfigShape & Pick<typeof floatDepositsConfigShape, 'TREASURY_POSTING_REPLY_TIMEOUT_MS'>
>;

/** Withdrawal cases: their routes and the finisher that records the ledger's events on their steps. */
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
  deps.postings.register(WITHDRAWAL_REFERENCE_TYPE, (tx, results) => withdrawals.finishFromEvents(tx, results));
  deps.postings.awaits(withdrawals.awaitedRecords);
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
