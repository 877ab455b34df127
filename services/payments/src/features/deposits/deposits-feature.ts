import { BANK_STATEMENT_BODY, depositRoutes, statementMatchRoutes } from '@wallet/contracts';
import { type BodyOptInRoute, type Features, idempotency, type ServiceConfig, type ServiceParts, type TenantDirectory } from '@wallet/kit';
import { commandMovement, type MemberDirectory, moneyFeature, type Postings } from '@wallet/money-commands';
import { z } from 'zod';
import type { peersConfigShape } from '../../peers';
import { bankStatementsRouter } from '../bank-statements/bank-statements-router';
import { BankStatementsService } from '../bank-statements/bank-statements-service';
import { DEPOSIT } from './deposit-records';
import { depositSource } from './deposit-source';
import { depositsRouter } from './deposits-router';
import { DEPOSIT_CREDIT, DepositsService } from './deposits-service';
import { MomoProviderDirectory } from './momo-provider-directory';
import { MatchSuggestions } from '../statement-matches/match-suggestions';
import { statementMatchesRouter } from '../statement-matches/statement-matches-router';
import { StatementMatchesService } from '../statement-matches/statement-matches-service';

const milliseconds = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

const depositsConfigShape = {
  /** How long a tenant's providers and webhook secrets are cached (a signature mismatch refetches once). */
  PAYMENTS_MOMO_PROVIDER_CACHE_TTL_MS: milliseconds(0, 3_600_000, 30_000),
  /** How long a credit waits for the ledger's answer to show its journalEntryId; the deposit is completed either way. */
  PAYMENTS_DEPOSIT_REPLY_WAIT_MS: milliseconds(0, 60_000, 2_000),
};

/** The routes that take a CSV body, or one over 1 MiB. */
export const DEPOSIT_BODY_OPT_INS: BodyOptInRoute[] = [
  { method: depositRoutes.importStatement.method, path: depositRoutes.importStatement.path, ...BANK_STATEMENT_BODY },
];

/** Their services and routes, bank statement imports' with them. */
function startDeposits(
  parts: ServiceParts<
    ServiceConfig<typeof depositsConfigShape & Pick<typeof peersConfigShape, 'IDENTITY_URL' | 'PAYMENTS_IDENTITY_TIMEOUT_MS'>>
  >,
  deps: { tenants: TenantDirectory; postings: Postings; members: MemberDirectory },
): Features {
  const { config, db, relay, logger } = parts;
  const providers = new MomoProviderDirectory({
    identityUrl: config.IDENTITY_URL,
    internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
    timeoutMs: config.PAYMENTS_IDENTITY_TIMEOUT_MS,
    ttlMs: config.PAYMENTS_MOMO_PROVIDER_CACHE_TTL_MS,
    logger,
  });
  const deposits = new DepositsService({ db, relay, ...deps, providers, logger, replyTimeoutMs: config.PAYMENTS_DEPOSIT_REPLY_WAIT_MS });
  const statements = new BankStatementsService({ db });
  const matches = new StatementMatchesService({ db, members: deps.members, deposits });
  const suggestions = new MatchSuggestions({ db, deposits });
  return {
    routes: (app) => {
      const remember = idempotency({ db, required: false, logger });
      app.use(depositsRouter(deposits, remember));
      app.use(bankStatementsRouter(statements, remember));
      app.use(statementMatchesRouter(matches, suggestions, remember));
    },
    bodyOptIns: DEPOSIT_BODY_OPT_INS,
  };
}

/**
 * Deposits (webhook, bank slips, verification, workbench matches) and bank statement imports: one movement, whose
 * finisher and awaited records serve both ways in.
 */
export const DEPOSITS_FEATURE = moneyFeature({
  movements: [
    commandMovement(DEPOSIT_CREDIT, DEPOSIT, {
      source: depositSource,
      // A workbench match's approval credits a slip as its verification does.
      routes: [depositRoutes.momoWebhook, depositRoutes.bankSlip, depositRoutes.verify, statementMatchRoutes.approve],
    }),
  ],
  config: depositsConfigShape,
  start: startDeposits,
});
