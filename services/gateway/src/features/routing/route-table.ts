import { type PathId, pathIdsOf, type RouteContract } from '@wallet/contracts';

interface CompiledRoute {
  route: RouteContract;
  method: string;
  pattern: RegExp;
  /** One letter per segment, `L` literal and `P` parameter: sorts literal segments first. */
  shape: string;
  /** The id kind of each parameter, in the order of the pattern's groups. */
  ids: PathId[];
}

const PARAMETER_SEGMENT = /^\{\w+\}$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compile(route: RouteContract): CompiledRoute {
  if (!route.path.startsWith('/') || route.path.endsWith('/'))
    throw new Error(`route template must start and not end with '/': ${route.path}`);
  const segments = route.path.slice(1).split('/');
  const parts = segments.map((segment) => {
    if (PARAMETER_SEGMENT.test(segment)) return '([^/]+)';
    if (segment === '' || /[{}]/.test(segment)) throw new Error(`route template has a malformed segment: ${route.path}`);
    return escapeRegExp(segment);
  });
  return {
    route,
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^/${parts.join('/')}$`),
    shape: segments.map((segment) => (PARAMETER_SEGMENT.test(segment) ? 'P' : 'L')).join(''),
    ids: pathIdsOf(route.path),
  };
}

/**
 * The path as a URL parser would leave it. A path it would change (dot segments, also as
 * `%2e`, backslashes, characters it would escape) is refused: otherwise a parameter such as
 * `..` could match one route's template here and reach a different route upstream.
 */
export function isCanonicalPath(path: string): boolean {
  if (!path.startsWith('/')) return false;
  try {
    return new URL(`http://gateway.invalid${path}`).pathname === path;
  } catch {
    return false;
  }
}

export interface RouteTable {
  /** The route for this method and raw path (no query), or null: unknown path and wrong method alike. */
  match(method: string, path: string): RouteContract | null;
  /**
   * Whether every id in a path the route matched has its kind's shape. One that does not (a
   * wallet route given `tx_...`, a percent-encoded NUL) names nothing: 404 without a look-up.
   */
  idsWellFormed(route: RouteContract, path: string): boolean;
  readonly routes: readonly RouteContract[];
}

/** Compiles the OpenAPI path templates once; literal segments win over parameters. */
export function compileRouteTable(routes: readonly RouteContract[]): RouteTable {
  const compiled = routes.map(compile).sort((a, b) => (a.shape < b.shape ? -1 : a.shape > b.shape ? 1 : 0));
  const byRoute = new Map(compiled.map((entry) => [entry.route, entry]));
  return {
    routes,
    idsWellFormed(route, path) {
      const entry = byRoute.get(route);
      if (!entry || entry.ids.length === 0) return true;
      const values = entry.pattern.exec(path)?.slice(1) ?? [];
      return values.length === entry.ids.length && entry.ids.every((id, index) => id.pattern.test(values[index] as string));
    },
    match(method, path) {
      if (!isCanonicalPath(path)) return null;
      const upperMethod = method.toUpperCase();
      return compiled.find((entry) => entry.method === upperMethod && entry.pattern.test(path))?.route ?? null;
    },
  };
}

/** The admin listener serves only the system surface's paths (docs/decisions/wire-conventions.md). */
export function isAdminPath(path: string): boolean {
  return path === '/v1/tenants' || path.startsWith('/v1/tenants/') || path.startsWith('/v1/system/');
}
