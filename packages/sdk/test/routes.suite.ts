import { ROUTES, type RouteContract } from '@wallet/contracts';
import { z } from 'zod';
import { SDK_ROUTES, type ApiRoute } from '../src';
import { effectiveSchemas } from '../src/routes';

function routeKey(route: { method: string; path: string }): string {
  return `${route.method.toUpperCase()} ${route.path.replace(/\{\w+\}/g, '{}')}`;
}

function shape(schema: z.ZodType | undefined, io: 'input' | 'output'): unknown {
  return schema === undefined ? undefined : z.toJSONSchema(schema, { io, unrepresentable: 'any' });
}

const contractRoutes = new Map<string, RouteContract>(ROUTES.map((route) => [routeKey(route), route]));

/**
 * The SDK types its methods with its own copies of the routes (the contracts' list widens every
 * schema to z.ZodType); these must describe exactly what the contracts do.
 */
describe('SDK routes match packages/contracts', () => {
  it.each(Object.entries(SDK_ROUTES) as Array<[string, ApiRoute]>)('%s', (_name, route) => {
    const contract = contractRoutes.get(routeKey(route));
    expect(contract).toBeDefined();
    if (!contract) return;
    expect(route.method).toBe(contract.method);
    expect(route.success.status).toBe(contract.success.status);
    // At run time the contracts' own route object is what checks the call.
    expect(effectiveSchemas(route)).toBe(contract);
    for (const io of ['input', 'output'] as const) {
      expect(shape(route.query, io)).toEqual(shape(contract.query, io));
      expect(shape(route.body, io)).toEqual(shape(contract.body, io));
      expect(shape(route.success.schema, io)).toEqual(shape(contract.success.schema, io));
    }
  });
});
