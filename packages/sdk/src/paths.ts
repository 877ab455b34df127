import { WalletRequestValidationError } from './errors';

/** Names of the `{param}` placeholders of an OpenAPI path template. */
export type PathParamNames<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;

/** `/v1/tenants/{id}/api-keys/{keyId}` needs `{ id: string; keyId: string }`. */
export type PathParams<Path extends string> = string extends Path ? Record<string, string> : { [Name in PathParamNames<Path>]: string };

/**
 * Percent-encodes everything but RFC 3986 unreserved characters. encodeURIComponent leaves
 * `!'()*` alone, and the URL parser would encode `'` in a query itself; then the bytes on the
 * wire would differ from the path that was signed.
 */
export function encodeUriComponentStrict(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function fillPathTemplate(template: string, params: Readonly<Record<string, string>> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_placeholder, name: string) => {
    const value = params?.[name];
    if (typeof value !== 'string' || value === '')
      throw new WalletRequestValidationError(`Path parameter "${name}" of ${template} must be a non-empty string`);
    // URL parsing resolves dot segments: `/v1/journal/..` would reach another route.
    if (value === '.' || value === '..')
      throw new WalletRequestValidationError(`Path parameter "${name}" of ${template} cannot be "${value}"`);
    return encodeUriComponentStrict(value);
  });
}

export type QueryScalar = string | number | boolean;
export type QueryValue = QueryScalar | readonly QueryScalar[] | null | undefined;

/**
 * `key=value` parts in the caller's order (the signature sorts them, the wire need not); arrays
 * repeat their key, and absent values are left out rather than sent empty.
 */
export function serializeQuery(query: object | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query) as Array<[string, unknown]>) {
    const values = Array.isArray(value) ? (value as unknown[]) : [value];
    for (const item of values) {
      if (item === undefined || item === null) continue;
      if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
        throw new WalletRequestValidationError(`Query parameter "${key}" must be a string, number, boolean or an array of them`);
      }
      parts.push(`${encodeUriComponentStrict(key)}=${encodeUriComponentStrict(String(item))}`);
    }
  }
  return parts.join('&');
}

/** Normalised route identity: parameter names may differ between two copies of one route. */
export function routeKey(method: string, pathTemplate: string): string {
  return `${method.toUpperCase()} ${pathTemplate.replace(/\{\w+\}/g, '{}')}`;
}
