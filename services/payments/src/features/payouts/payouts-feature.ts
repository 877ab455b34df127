import { payoutRoutes } from '@wallet/contracts';
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
import { z } from 'zod';
import { payoutCaseSource } from './payout-case-records';
import { payoutsRouter } from './payouts-router';
import { PAYOUT_CASES, PayoutsService } from './payouts-service';
import { payoutPostCommand } from './payout-posting';
import { DELIVERABLE_PAYOUT_READ, type DeliverablePayout, PAYOUT } from './payouts-store';

/** PAYMENTS_PAYOUT_RAIL, its _INTERVAL_MS, _BATCH_SIZE, _LEASE_MS and _CRASH_AFTER_DELIVERY, and PAYMENTS_SANDBOX_RAIL_DELAY_MS. */
const PAYOUT_RAIL = railConfig('PAYMENTS_PAYOUT_RAIL', 'PAYMENTS_SANDBOX_RAIL_DELAY_MS');

const payoutsConfigShape = {
  /** How long a payout's creation (its hold) or decision (its settle or release) waits for the ledger's answer before answering 202. */
  PAYMENTS_PAYOUT_REPLY_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(3_000),
  ...PAYOUT_RAIL.shape,
};

/** Approved payouts through the rail: the outcome's command refunds the wallet, or credits the float of the destination. */
const PAYOUT_DELIVERY: DeliveredCases<DeliverablePayout> = {
  table: PAYOUT.table,
  noun: 'payout',
  read: DELIVERABLE_PAYOUT_READ,
  command: payoutPostCommand,
};

/** Their routes and their delivery through the rail (the postings get their finisher from payments' list, src/movements.ts). */
function startPayouts(
  parts: ServiceParts<ServiceConfig<typeof payoutsConfigShape>>,
  deps: { postings: Postings; tenants: TenantDirectory; members: MemberDirectory },
): Features {
  const { config, db, relay, logger } = parts;
  const payouts = new PayoutsService({
    db,
    relay,
    postings: deps.postings,
    members: deps.members,
    tenants: deps.tenants,
    replyTimeoutMs: config.PAYMENTS_PAYOUT_REPLY_TIMEOUT_MS,
  });
  const delivery = startCaseDelivery({ db, relay, logger }, PAYOUT_DELIVERY, PAYOUT_RAIL.settingsOf(config));
  return {
    stop: () => delivery.stop(),
    routes: (app) =>
      app.use(
        payoutsRouter(payouts, {
          create: idempotency({ db, required: true, logger }),
          // Optional on decisions: with a key a retried decision replays its answer; without one
          // a second decision is 409 CASE_NOT_PENDING either way.
          decide: idempotency({ db, required: false, logger }),
        }),
      ),
  };
}

/** Payout cases: a maker requests, a checker approves or rejects, the rail delivers. */
export const PAYOUTS_FEATURE = moneyFeature({
  movements: [
    caseMovement(PAYOUT_CASES, { source: payoutCaseSource, routes: [payoutRoutes.create, payoutRoutes.approve, payoutRoutes.reject] }),
  ],
  config: payoutsConfigShape,
  start: startPayouts,
});
