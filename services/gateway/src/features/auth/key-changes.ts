import type { RouteContract } from '@wallet/contracts';

/** The value of each `{name}` of a route template in a path that matched it. */
export function pathParameters(template: string, path: string): Record<string, string> {
  const names = template.split('/');
  const values = path.split('/');
  const parameters: Record<string, string> = {};
  names.forEach((name, index) => {
    const match = /^\{(\w+)\}$/.exec(name);
    const value = values[index];
    if (match?.[1] && value !== undefined) parameters[match[1]] = decodeURIComponent(value);
  });
  return parameters;
}

/**
 * The key a successful key-changing call (PATCH, rotate, revoke, on either surface) acted on,
 * or null. The gateway that passed the change drops its cache of the key before the client can
 * send another request; other instances learn it from identity's `api_key.changed.v1`.
 */
export function changedKeyId(route: RouteContract, path: string, status: number): string | null {
  if (status < 200 || status >= 300 || route.method === 'get') return null;
  const match = /\/api-keys\/\{(\w+)\}/.exec(route.path);
  if (!match?.[1]) return null;
  return pathParameters(route.path, path)[match[1]] ?? null;
}
