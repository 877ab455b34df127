import { ROUTES } from '@wallet/contracts';
import { buildNamespaces } from '../src/namespaces';
import type { ApiRoute } from '../src/routes';
import type { RouteCaller } from '../src/route-call';

/** Every method of the namespaces by its path (`transfers.create`), with the route it calls. */
function sdkCalls(): Map<string, ApiRoute> {
  const calls = new Map<string, ApiRoute>();
  let calling = '';
  const caller: RouteCaller = {
    call: (route) => {
      calls.set(calling, route);
      return Promise.resolve(undefined as never);
    },
  };
  const visit = (node: unknown, path: string[]): void => {
    if (typeof node === 'function') {
      calling = path.join('.');
      // Placeholder arguments: a method builds its call from them and hands the route to the caller.
      void (node as (...args: unknown[]) => unknown)('id', 'second', {}, {});
      return;
    }
    for (const [name, member] of Object.entries(node as Record<string, unknown>)) visit(member, [...path, name]);
  };
  visit(buildNamespaces(caller), []);
  return calls;
}

/** docs/decisions/openapi.md: a route's operationId is the SDK's name of its call, so generated clients and the SDK agree. */
describe("operationIds follow the SDK's names", () => {
  const calls = sdkCalls();

  it('reads a route from every method of the namespaces', () => {
    expect(calls.size).toBeGreaterThan(90);
    expect(calls.get('transfers.create')).toMatchObject({ method: 'post', path: '/v1/transfers' });
  });

  it.each([...calls].map(([name, route]) => [name, route] as const))('%s', (name, route) => {
    const contract = ROUTES.find((each) => each.method === route.method && each.path === route.path);
    expect(contract?.operationId).toBe(name);
  });

  it('leaves only routes the SDK does not call to be named otherwise', () => {
    const named = new Set(calls.keys());
    expect(ROUTES.filter((route) => !named.has(route.operationId ?? '')).map((route) => route.operationId)).toEqual([
      'deposits.momoWebhook',
    ]);
  });
});
