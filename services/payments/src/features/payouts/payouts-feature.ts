import { payoutRoutes } from '@wallet/contracts';
import { type Features, idempotency, type ServiceConfig, type ServiceParts, type TenantDirectory } from '@wallet/kit';
import { caseMovement, type MemberDirectory, moneyFeature, type Postings } from '@wallet/money-commands';
import { z } from 'zod';
import { payoutCaseSource } from './payout-case-records';
import { payoutsRouter } from './payouts-router';
import { PAYOUT_CASES, PayoutsService } from './payouts-service';
import { PayoutDelivery } from './rails/payout-delivery';
import { SandboxRail } from './rails/sandbox-rail';

const payoutsConfigShape = {
  /** How long a payout's creation (its hold) or decision (its settle or release) waits for the ledger's answer before answering 202. */
  PAYMENTS_PAYOUT_REPLY_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(3_000),
  /** Which rail approved payouts leave through; only the sandbox exists so far, and tests always use it. */
  PAYMENTS_PAYOUT_RAIL: z.enum(['sandbox']).default('sandbox'),
  /** Pause between delivery rounds over approved cases; 0 turns delivery off (cases stay approved). */
  PAYMENTS_PAYOUT_RAIL_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .refine((value) => value === 0 || value >= 50, '0 (off) or at least 50')
    .default(1_000),
  /** Cases delivered per round, oldest first. */
  PAYMENTS_PAYOUT_RAIL_BATCH_SIZE: z.coerce.number().int().min(1).max(1_000).default(50),
  /** How long a delivery round holds its cases from the other instances'; a crashed instance's cases are delivered again after it. */
  PAYMENTS_PAYOUT_RAIL_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /** How long the sandbox rail takes to answer, as a provider would. */
  PAYMENTS_SANDBOX_RAIL_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(100),
  /** Test hook: 1 stops delivery right after the rail answered and before recording, as a crash would. */
  PAYMENTS_PAYOUT_RAIL_CRASH_AFTER_DELIVERY: z.enum(['0', '1']).default('0'),
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
  const delivery = new PayoutDelivery({
    db,
    relay,
    logger,
    rail: new SandboxRail({ db, delayMs: config.PAYMENTS_SANDBOX_RAIL_DELAY_MS }),
    intervalMs: config.PAYMENTS_PAYOUT_RAIL_INTERVAL_MS,
    batchSize: config.PAYMENTS_PAYOUT_RAIL_BATCH_SIZE,
    leaseMs: config.PAYMENTS_PAYOUT_RAIL_LEASE_MS,
    crashAfterRail: config.PAYMENTS_PAYOUT_RAIL_CRASH_AFTER_DELIVERY === '1',
  });
  delivery.start();
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
