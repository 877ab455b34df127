import type { PayoutDestination } from '@wallet/contracts';

export interface RailDelivery {
  /** The payout case id; the rail's idempotency key: the same case is paid at most once. */
  caseId: string;
  destination: PayoutDestination;
  /** Decimal string at the currency's scale. */
  amount: string;
  currencyCode: string;
}

export type RailOutcome =
  | { status: 'succeeded'; railReference: string }
  | { status: 'failed'; railReference: string; failureReason: string };

/**
 * Where approved payouts leave the platform (a mobile money network, a bank). A repeated call
 * with the same caseId must answer the first outcome and never pay again: the worker relies on
 * it to resume a delivery whose answer it lost.
 */
export interface PayoutRail {
  deliver(delivery: RailDelivery): Promise<RailOutcome>;
}

/** The account number or phone number the rail pays into. */
export function destinationNumber(destination: PayoutDestination): string {
  return 'phoneNumber' in destination ? destination.phoneNumber : destination.accountNumber;
}
