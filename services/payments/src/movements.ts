import { moneyFeatureMovements } from '@wallet/money-commands';
import { DEPOSITS_FEATURE } from './features/deposits/deposits-feature';
import { PAYOUTS_FEATURE } from './features/payouts/payouts-feature';
import { TRANSFERS_FEATURE } from './features/transfers/transfers-feature';

/**
 * Payments' money features, each once (docs/money-movements.md): main spreads their
 * configuration, starts them and mounts their routes in this order, and hands the postings their
 * movements' finishers and awaited records, and reconciliation their sources. Transfers first:
 * they are most of the traffic, and each router ahead of theirs is matched against every request
 * in vain.
 */
export const PAYMENTS_MONEY_FEATURES = [TRANSFERS_FEATURE, PAYOUTS_FEATURE, DEPOSITS_FEATURE] as const;

/** Every movement of the features above: transfers, reversals, payouts, deposits. */
export const PAYMENTS_MOVEMENTS = moneyFeatureMovements(PAYMENTS_MONEY_FEATURES);
