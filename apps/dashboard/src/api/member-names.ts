import { PAGE_LIMIT_MAX, teamRoutes } from '@wallet/contracts';
import type { ApiClient } from './client';

type Resolve = (name: string | null) => void;
type Reject = (error: unknown) => void;

/**
 * Names of team members for the ids a screen shows (requesters, deciders, verifiers), asked of
 * `GET /v1/team/names` once for all the ids its rows ask for in the same moment, not once per
 * row. An id of no member (a system actor, another tenant's) resolves to null.
 */
export function memberNameLoader(api: Pick<ApiClient, 'call'>): (id: string) => Promise<string | null> {
  let waiting = new Map<string, Array<{ resolve: Resolve; reject: Reject }>>();
  const flush = async (batch: typeof waiting) => {
    const ids = [...batch.keys()];
    for (let start = 0; start < ids.length; start += PAGE_LIMIT_MAX) {
      const chunk = ids.slice(start, start + PAGE_LIMIT_MAX);
      try {
        const { data } = await api.call(teamRoutes.names, { query: { ids: chunk.join(',') } });
        const names = new Map(data.map((member) => [member.id, member.name]));
        for (const id of chunk) for (const waiter of batch.get(id) ?? []) waiter.resolve(names.get(id) ?? null);
      } catch (error) {
        for (const id of chunk) for (const waiter of batch.get(id) ?? []) waiter.reject(error);
      }
    }
  };
  return (id) =>
    new Promise((resolve, reject) => {
      if (waiting.size === 0)
        setTimeout(() => {
          const batch = waiting;
          waiting = new Map();
          void flush(batch);
        }, 0);
      waiting.set(id, [...(waiting.get(id) ?? []), { resolve, reject }]);
    });
}
