import { inboxFilters, type ListFilters } from '@wallet/kit';

/** A case list's filters: pending cases from their own partial index (`<table>_pending`, kit's inboxFilters), any other status tested on a bounded number of the cases `indexed` finds. */
export function caseListFilters(status: string | undefined, indexed: Record<string, string | undefined> = {}): ListFilters {
  return inboxFilters({ status: 'pending' }, { indexed, tested: { status } });
}
