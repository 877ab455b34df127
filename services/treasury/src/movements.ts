import { moneyFeatureMovements } from '@wallet/money-commands';
import { FLOAT_DEPOSITS_FEATURE } from './features/float-deposits/float-deposits-feature';
import { WITHDRAWALS_FEATURE } from './features/withdrawals/withdrawals-feature';

/**
 * Treasury's money features, each once (docs/money-movements.md): main spreads their
 * configuration, starts them and mounts their routes in this order, and hands the postings their
 * movements' finishers and awaited records, and its records for check 3 their sources.
 */
export const TREASURY_MONEY_FEATURES = [FLOAT_DEPOSITS_FEATURE, WITHDRAWALS_FEATURE] as const;

/** Every movement of the features above: float deposits, withdrawals. */
export const TREASURY_MOVEMENTS = moneyFeatureMovements(TREASURY_MONEY_FEATURES);
