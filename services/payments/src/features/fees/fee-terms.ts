import type { FeeTransactionType } from '@wallet/contracts';
import type { SqlStatement } from '@wallet/kit';
import * as store from './fees-store';

export type { DefaultTerms } from './fees-store';

/**
 * The tenant's default fee terms of one type and currency as one scalar SQL expression, for a
 * money movement to fold into its own statement (its fee terms in the same round trip as its
 * other rows). The fee tables stay the fees feature's own.
 */
export function defaultTermsExpression(
  tenantId: string,
  only: { transactionType: FeeTransactionType; currencyCode: string },
): SqlStatement {
  return store.defaultTermsExpression(tenantId, only);
}

/** What `defaultTermsExpression` yielded, as the stored records. */
export function parseDefaultTerms(value: unknown): store.DefaultTerms {
  return store.parseDefaultTerms(value);
}
