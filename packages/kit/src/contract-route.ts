import type { RequestHandler, Router } from 'express';

/** A route as contracts declare it: its method and its OpenAPI path template (`/v1/transfers/{id}/reversals`). */
export interface RouteSpec<Path extends string = string> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: Path;
}

/** The parameters a path template names, each a string: `{id}` is `request.params.id`. */
export type PathParams<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? { [Key in Name]: string } & PathParams<Rest>
  : Record<never, string>;

/**
 * Express's form of a path template. Express 5 reads `{...}` as an optional part of the path, so
 * a template mounted as it is would match the wrong requests: `{id}` becomes `:id`.
 */
export function expressPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

/** How messages name a route: `POST /v1/transfers/{id}/reversals`. */
export function routeName(route: RouteSpec): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

/**
 * Mounts handlers at a contract's route, with its method and its path: a service does not spell
 * again a route its contract (and so the gateway and the OpenAPI document) already has.
 */
export function mountRoute<Path extends string>(
  router: Router,
  route: RouteSpec<Path>,
  ...handlers: Array<RequestHandler<PathParams<Path>>>
): void {
  router.route(expressPath(route.path))[route.method]<PathParams<Path>>(...handlers);
}
