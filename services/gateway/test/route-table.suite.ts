import fc from 'fast-check';
import { ID_PREFIXES, type IdKind, pathIdsOf, ROUTES, type RouteContract } from '@wallet/contracts';
import { z } from 'zod';
import { changedKeyId } from '../src/features/auth/key-changes';
import { compileRouteTable, isAdminPath, isCanonicalPath } from '../src/features/routing/route-table';

function route(method: RouteContract['method'], path: string): RouteContract {
  return {
    method,
    path,
    summary: path,
    surface: 'tenant',
    service: 'payments',
    scope: 'wallets:read',
    success: { status: 200, schema: z.unknown() },
  };
}

describe('the route table', () => {
  const table = compileRouteTable(ROUTES);

  it('matches every contract route by method and template', () => {
    for (const contract of ROUTES) {
      const path = contract.path.replace(/\{\w+\}/g, 'x_1');
      expect(table.match(contract.method.toUpperCase(), path)).toBe(contract);
    }
  });

  it('matches nothing for an unknown path, a wrong method, a trailing slash or an extra segment', () => {
    expect(table.match('GET', '/v1/nothing')).toBeNull();
    expect(table.match('DELETE', '/v1/tenants')).toBeNull();
    expect(table.match('GET', '/v1/journal/')).toBeNull();
    expect(table.match('GET', '/v1/journal/je_1/extra')).toBeNull();
    expect(table.match('GET', '/V1/journal')).toBeNull();
  });

  it('prefers a literal segment over a parameter wherever they are declared', () => {
    const literal = route('get', '/v1/payouts/cases');
    const parameter = route('get', '/v1/payouts/{id}');
    const compiled = compileRouteTable([parameter, literal]);
    expect(compiled.match('GET', '/v1/payouts/cases')).toBe(literal);
    expect(compiled.match('GET', '/v1/payouts/pc_1')).toBe(parameter);
  });

  it("takes only ids of each parameter's kind: another prefix, other characters or an encoded NUL name nothing", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ROUTES.filter((contract) => contract.path.includes('{'))),
        fc.stringMatching(/^[0-9A-Za-z]{1,64}$/),
        (contract, body) => {
          const ids = pathIdsOf(contract.path);
          let index = 0;
          const path = contract.path.replace(/\{\w+\}/g, () => `${ID_PREFIXES[(ids[index++] as { kind: IdKind }).kind]}_${body}`);
          expect(table.idsWellFormed(contract, path)).toBe(true);
          const wrongPrefix = path.replace(/\/([a-z]+)_/, (_whole, prefix: string) => `/${prefix === 'wl' ? 'tx' : 'wl'}_`);
          expect(table.idsWellFormed(contract, wrongPrefix)).toBe(false);
          expect(table.idsWellFormed(contract, path.replace(body, `${body.slice(0, 1)}%00`))).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses malformed templates when compiling', () => {
    expect(() => compileRouteTable([route('get', 'v1/x')])).toThrow();
    expect(() => compileRouteTable([route('get', '/v1/x/')])).toThrow();
    expect(() => compileRouteTable([route('get', '/v1/{a}b')])).toThrow();
  });

  it('takes regular-expression characters in templates literally', () => {
    const compiled = compileRouteTable([route('get', '/v1/a.b')]);
    expect(compiled.match('GET', '/v1/a.b')).not.toBeNull();
    expect(compiled.match('GET', '/v1/axb')).toBeNull();
  });
});

describe('isCanonicalPath', () => {
  it.each(['/v1/journal', '/v1/journal/je_1', '/v1/tenants/a%2Fb', '/v1/x/%E2%82%AC'])('accepts %s', (path) => {
    expect(isCanonicalPath(path)).toBe(true);
  });

  it.each(['/v1/..', '/v1/./x', '/v1/%2e%2E/x', '/v1/x/%2e', '/v1\\x', 'v1/x', '/v1/x y', '/v1/{id}'])('refuses %s', (path) => {
    expect(isCanonicalPath(path)).toBe(false);
  });
});

describe('isAdminPath', () => {
  it.each([
    ['/v1/tenants', true],
    ['/v1/tenants/{id}', true],
    ['/v1/system/organizations', true],
    ['/v1/tenantsx', false],
    ['/v1/system', false],
    ['/v1/journal', false],
  ])('%s -> %s', (path, expected) => {
    expect(isAdminPath(path)).toBe(expected);
  });
});

describe('the key a key-changing call acted on', () => {
  const byPath = (method: string, path: string) =>
    ROUTES.find((candidate) => candidate.method === method && candidate.path === path) as RouteContract;

  it('is read from the developer and the system routes, only for successful changes', () => {
    expect(changedKeyId(byPath('post', '/v1/developer/api-keys/{id}/revoke'), '/v1/developer/api-keys/ak_1/revoke', 200)).toBe('ak_1');
    expect(changedKeyId(byPath('patch', '/v1/developer/api-keys/{id}'), '/v1/developer/api-keys/ak_2', 200)).toBe('ak_2');
    expect(changedKeyId(byPath('post', '/v1/tenants/{id}/api-keys/{keyId}/rotate'), '/v1/tenants/tn_1/api-keys/ak_3/rotate', 200)).toBe(
      'ak_3',
    );
    expect(changedKeyId(byPath('post', '/v1/developer/api-keys/{id}/revoke'), '/v1/developer/api-keys/ak_1/revoke', 404)).toBeNull();
    expect(changedKeyId(byPath('get', '/v1/developer/api-keys/{id}'), '/v1/developer/api-keys/ak_1', 200)).toBeNull();
    expect(changedKeyId(byPath('get', '/v1/journal/{id}'), '/v1/journal/je_1', 200)).toBeNull();
  });
});
