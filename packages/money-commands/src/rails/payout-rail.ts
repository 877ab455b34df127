import type { PayoutDestination, WithdrawalDestination } from '@wallet/contracts';

/** Where a rail pays: a wallet payout's phone or bank account, or a withdrawal's, which may also be cash collected in person. */
export type RailDestination = PayoutDestination | WithdrawalDestination;

export interface RailDelivery {
  /** The case id; the rail's idempotency key: the same case is paid at most once. */
  caseId: string;
  destination: RailDestination;
  /** Decimal string at the currency's scale. */
  amount: string;
  currencyCode: string;
}

export type RailOutcome =
  | { status: 'succeeded'; railReference: string }
  | { status: 'failed'; railReference: string; failureReason: string };

/**
 * Where approved payouts and withdrawals leave the platform (a mobile money network, a bank, a
 * cash desk). A repeated call with the same caseId must answer the first outcome and never pay
 * again: the worker relies on it to resume a delivery whose answer it lost.
 */
export interface PayoutRail {
  deliver(delivery: RailDelivery): Promise<RailOutcome>;
}

/** Who or what the rail pays into: the phone or account number, or for cash the person who collects it. */
export function payeeOf(destination: RailDestination): string {
  if ('phoneNumber' in destination) return destination.phoneNumber;
  return 'accountNumber' in destination ? destination.accountNumber : destination.recipientName;
}
