import { treasuryRoutes, withdrawalRoutes } from '@wallet/contracts';
import { caseMovement, commandMovement, type Movement } from '@wallet/money-commands';
import { FLOAT_DEPOSIT, floatDepositRecords } from './features/float-deposits/float-deposit-records';
import { FLOAT_DEPOSIT_COMMAND } from './features/float-deposits/float-deposits-service';
import { withdrawalRecords } from './features/withdrawals/withdrawal-records';
import { WITHDRAWAL_CASES } from './features/withdrawals/withdrawals-service';

/**
 * Treasury's money movements, each once (docs/money-movements.md): main hands the postings their
 * finishers and awaited records, and its records for check 3 their sources, from this list.
 */
export const TREASURY_MOVEMENTS: readonly Movement[] = [
  commandMovement(FLOAT_DEPOSIT_COMMAND, FLOAT_DEPOSIT, { source: floatDepositRecords, routes: [treasuryRoutes.createFloatDeposit] }),
  caseMovement(WITHDRAWAL_CASES, {
    source: withdrawalRecords,
    routes: [withdrawalRoutes.create, withdrawalRoutes.approve, withdrawalRoutes.reject],
  }),
];
