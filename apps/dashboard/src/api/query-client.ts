import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isApiError, isUnauthorized } from './errors';

declare module '@tanstack/react-query' {
  interface Register {
    /** `handlesUnauthorized`: the form shows the 401 itself (a wrong password is no expired session). */
    mutationMeta: { handlesUnauthorized?: boolean };
  }
}

/** Only a lost connection or a 5xx may go away on retry; a refusal (4xx, 401 above all) is final. */
function isTransient(error: unknown): boolean {
  return !isApiError(error) || error.status === 0 || error.status >= 500;
}

/**
 * Server state lives in TanStack Query. Any 401 from a query or a mutation means the session is
 * gone: everything cached is dropped and `onUnauthorized` takes the user to the login page.
 */
export function createQueryClient(onUnauthorized: () => void): QueryClient {
  const queryClient: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error) => {
        if (!isUnauthorized(error)) return;
        queryClient.clear();
        onUnauthorized();
      },
    }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _onMutateResult, mutation) => {
        if (!isUnauthorized(error) || mutation.meta?.handlesUnauthorized) return;
        queryClient.clear();
        onUnauthorized();
      },
    }),
    defaultOptions: {
      queries: { retry: (failures, error) => failures < 2 && isTransient(error), staleTime: 15_000 },
    },
  });
  return queryClient;
}
