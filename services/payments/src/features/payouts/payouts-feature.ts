import { type Features, idempotency, type ServiceConfig, type ServiceParts } from '@wallet/kit';
import { z } from 'zod';
import type { depositsConfigShape } from '../deposits/deposits-feature';
import type { Postings } from '../postings/postings-feature';
import { MemberDirectory } from './member-directory';
import { PAYOUT_REFERENCE_TYPE } from './payout-posting';
import { payoutsRouter } from './payouts-router';
import { PayoutsService } from './payouts-service';

export const payoutsConfigShape = {
  /** How long POST /v1/payouts waits for the ledger's answer to the hold before answering 202 with the case pending. */
  PAYMENTS_PAYOUT_REPLY_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(3_000),
};

type PayoutsConfig = ServiceConfig<typeof payoutsConfigShape & Pick<typeof depositsConfigShape, 'IDENTITY_URL' | 'PAYMENTS_IDENTITY_TIMEOUT_MS'>>;

/** Payout cases: their routes, and the finisher that records the ledger's events on their steps. */
export function startPayouts(parts: ServiceParts<PayoutsConfig>, deps: { postings: Postings }): Features {
  const { config, db, relay, logger } = parts;
  const members = new MemberDirectory({ identityUrl: config.IDENTITY_URL, internalTokenSecret: config.INTERNAL_TOKEN_SECRET, timeoutMs: config.PAYMENTS_IDENTITY_TIMEOUT_MS, logger });
  const payouts = new PayoutsService({ db, relay, postings: deps.postings, members, replyTimeoutMs: config.PAYMENTS_PAYOUT_REPLY_TIMEOUT_MS });
  deps.postings.register(PAYOUT_REFERENCE_TYPE, (tx, results) => payouts.finishFromEvents(tx, results));
  return {
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
