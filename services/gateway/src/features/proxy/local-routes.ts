import type { Request, Response } from 'express';
import type { Principal } from '../auth/principal';

/** A route of service `gateway`: answered in-process, after the same checks as every forwarded route. */
export type LocalHandler = (call: { principal: Principal; request: Request; response: Response }) => Promise<void>;

/** Local handlers by `METHOD /template`, as the route contracts name them (kit's `routeName`). */
export type LocalRoutes = ReadonlyMap<string, LocalHandler>;
