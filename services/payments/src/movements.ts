import { depositRoutes, payoutRoutes, transferRoutes } from '@wallet/contracts';
import { caseMovement, commandMovement, type Movement } from '@wallet/money-commands';
import { payoutCaseSource } from './features/payouts/payout-case-records';
import { PAYOUT_CASES } from './features/payouts/payouts-service';
import { DEPOSIT } from './features/deposits/deposit-records';
import { depositSource } from './features/deposits/deposit-source';
import { DEPOSIT_CREDIT } from './features/deposits/deposits-service';
import { REVERSAL_COMMAND } from './features/transfers/transfer-reversals';
import { TRANSFER, TRANSFER_REVERSAL, transferReversalSource, transferSource } from './features/transfers/transfer-records';
import { TRANSFER_COMMAND } from './features/transfers/transfers-service';

/**
 * Payments' money movements, each once (docs/money-movements.md): main hands the postings their
 * finishers and awaited records, and reconciliation their sources, from this list.
 */
export const PAYMENTS_MOVEMENTS: readonly Movement[] = [
  commandMovement(TRANSFER_COMMAND, TRANSFER, { source: transferSource, routes: [transferRoutes.create] }),
  commandMovement(REVERSAL_COMMAND, TRANSFER_REVERSAL, { source: transferReversalSource, routes: [transferRoutes.reverse] }),
  caseMovement(PAYOUT_CASES, { source: payoutCaseSource, routes: [payoutRoutes.create, payoutRoutes.approve, payoutRoutes.reject] }),
  commandMovement(DEPOSIT_CREDIT, DEPOSIT, {
    source: depositSource,
    routes: [depositRoutes.momoWebhook, depositRoutes.bankSlip, depositRoutes.verify],
  }),
];
