import type { RouteContract } from '@wallet/contracts';
import type { Request, Response } from 'express';
import type { Principal } from '../auth/principal';

/** A route of service `gateway`: answered in-process, after the same checks as every forwarded route. */
export type LocalHandler = (call: { principal: Principal; request: Request; response: Response }) => Promise<void>;

/** Local handlers by `METHOD /template`, as the route contracts name them. */
export type LocalRoutes = ReadonlyMap<string, LocalHandler>;

export function localRouteKey(route: Pick<RouteContract, 'method' | 'path'>): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}
