import { treasuryRoutes } from '@wallet/contracts';
import { type Features, idempotency, type ServiceConfig, type ServiceParts, type TenantDirectory } from '@wallet/kit';
import { commandMovement, type MemberDirectory, moneyFeature, type Postings } from '@wallet/money-commands';
import type { peersConfigShape } from '../../peers';
import { FLOAT_DEPOSIT, floatDepositRecords } from './float-deposit-records';
import { floatDepositsRouter } from './float-deposits-router';
import { FLOAT_DEPOSIT_COMMAND, FloatDepositsService } from './float-deposits-service';

/** Their service and routes (the postings get their finisher from treasury's list, src/movements.ts). */
function startFloatDeposits(
  parts: ServiceParts<ServiceConfig<Pick<typeof peersConfigShape, 'TREASURY_POSTING_REPLY_TIMEOUT_MS'>>>,
  deps: { postings: Postings; tenants: TenantDirectory; members: MemberDirectory },
): Features {
  const { config, db, relay, logger } = parts;
  const deposits = new FloatDepositsService({
    db,
    relay,
    postings: deps.postings,
    tenants: deps.tenants,
    members: deps.members,
    replyTimeoutMs: config.TREASURY_POSTING_REPLY_TIMEOUT_MS,
  });
  return {
    routes: (app) => app.use(floatDepositsRouter(deposits, idempotency({ db, required: true, logger }))),
  };
}

/** Tenant float deposits. Their deadline is the service's (src/peers.ts): no variable of their own. */
export const FLOAT_DEPOSITS_FEATURE = moneyFeature({
  movements: [
    commandMovement(FLOAT_DEPOSIT_COMMAND, FLOAT_DEPOSIT, { source: floatDepositRecords, routes: [treasuryRoutes.createFloatDeposit] }),
  ],
  config: {},
  start: startFloatDeposits,
});
