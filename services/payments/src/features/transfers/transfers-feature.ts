import { transferRoutes } from '@wallet/contracts';
import { type Features, idempotency, type ServiceConfig, type ServiceParts, type TenantDirectory } from '@wallet/kit';
import { commandMovement, moneyFeature, type Postings } from '@wallet/money-commands';
import { z } from 'zod';
import { TRANSFER, TRANSFER_REVERSAL, transferReversalSource, transferSource } from './transfer-records';
import { REVERSAL_COMMAND, TransferReversals } from './transfer-reversals';
import { transferReversalsRouter } from './transfer-reversals-router';
import { transfersRouter } from './transfers-router';
import { TRANSFER_COMMAND, TransfersService } from './transfers-service';

const transfersConfigShape = {
  /** How long POST /v1/transfers (and a reversal) waits for the ledger's answer before answering 202 with the transfer pending. */
  PAYMENTS_TRANSFER_REPLY_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(3_000),
};

/** Their services and routes (the postings get their finishers from payments' list, src/movements.ts). */
function startTransfers(
  parts: ServiceParts<ServiceConfig<typeof transfersConfigShape>>,
  deps: { postings: Postings; tenants: TenantDirectory },
): Features {
  const { config, db, relay, logger } = parts;
  const transfers = new TransfersService({
    db,
    relay,
    tenants: deps.tenants,
    postings: deps.postings,
    replyTimeoutMs: config.PAYMENTS_TRANSFER_REPLY_TIMEOUT_MS,
  });
  const reversals = new TransferReversals({
    db,
    relay,
    postings: deps.postings,
    replyTimeoutMs: config.PAYMENTS_TRANSFER_REPLY_TIMEOUT_MS,
  });
  const idempotencyGuard = idempotency({ db, required: true, logger, claimAtFirstWrite: true });
  return {
    routes: (app) => app.use(transfersRouter(transfers, idempotencyGuard), transferReversalsRouter(reversals, idempotencyGuard)),
  };
}

/** Transfers and their reversals. */
export const TRANSFERS_FEATURE = moneyFeature({
  movements: [
    commandMovement(TRANSFER_COMMAND, TRANSFER, { source: transferSource, routes: [transferRoutes.create] }),
    commandMovement(REVERSAL_COMMAND, TRANSFER_REVERSAL, { source: transferReversalSource, routes: [transferRoutes.reverse] }),
  ],
  config: transfersConfigShape,
  start: startTransfers,
});
