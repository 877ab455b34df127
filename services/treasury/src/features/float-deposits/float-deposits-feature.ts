import { type Features, idempotency, type ServiceConfig, type ServiceParts, type TenantDirectory } from '@wallet/kit';
import type { MemberDirectory, Postings } from '@wallet/money-commands';
import type { peersConfigShape } from '../../peers';
import { floatDepositsRouter } from './float-deposits-router';
import { FloatDepositsService } from './float-deposits-service';

/** Float deposits: their routes (src/movements.ts hands the postings their finisher). */
export function startFloatDeposits(
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
