import { useQuery } from '@tanstack/react-query';
import { PAGE_LIMIT_MAX, type Page, payoutRoutes, withdrawalRoutes } from '@wallet/contracts';
import { api } from '../api/browser';
import { canCall } from '../auth/scopes';

const PENDING = { status: 'pending', limit: PAGE_LIMIT_MAX } as const;

/** A count read from a list's first page of the largest size: more than a page shows as "200+". */
export function countOf(page: Page<unknown>): string {
  return `${page.data.length}${page.nextCursor ? '+' : ''}`;
}

/**
 * The pending cases of one maker-checker list, under the key the overview and the navigation
 * share: one request serves both, and a decision (which invalidates every query) refreshes both.
 */
export function usePendingCases(kind: 'payouts' | 'withdrawals', scopes: readonly string[]) {
  const route = kind === 'payouts' ? payoutRoutes.list : withdrawalRoutes.list;
  return useQuery({
    queryKey: ['pending', kind],
    queryFn: ({ signal }) => api.call(route, { query: PENDING, signal }) as Promise<Page<unknown>>,
    enabled: canCall(scopes, route),
    // Cases others request arrive without this page knowing: the count is asked again each minute.
    refetchInterval: 60_000,
  });
}

/** Both lists' pending cases as the navigation shows them: "3", "200+", or nothing while none or unknown. */
export function usePendingTotal(scopes: readonly string[]): string | null {
  const lists = [usePendingCases('payouts', scopes), usePendingCases('withdrawals', scopes)].filter((list) => list.data);
  if (lists.length === 0) return null;
  const total = lists.reduce((sum, list) => sum + (list.data?.data.length ?? 0), 0);
  if (total === 0) return null;
  return `${total}${lists.some((list) => list.data?.nextCursor) ? '+' : ''}`;
}
