import type { Request, Response } from 'express';
import type { Principal } from '../auth/principal';
import type { UpstreamResponse, UpstreamService } from './upstream-client';

/** A GET of a service's route as the caller (its internal token, the request's correlation id): the answer, whatever its status. */
export type ReadAsCaller = (service: UpstreamService, pathWithQuery: string) => Promise<UpstreamResponse>;

/** A route of service `gateway`: answered in-process, after the same checks as every forwarded route. */
export type LocalHandler = (call: {
  principal: Principal;
  request: Request;
  response: Response;
  readAsCaller: ReadAsCaller;
}) => Promise<void>;

/** Local handlers by `METHOD /template`, as the route contracts name them (kit's `routeName`). */
export type LocalRoutes = ReadonlyMap<string, LocalHandler>;
