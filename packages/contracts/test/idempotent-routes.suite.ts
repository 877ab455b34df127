import { buildOpenApiDocument, ROUTES } from '../src';

/** Every POST that creates something (201) takes an Idempotency-Key, and the API document says so. */
describe('Idempotency-Key in the contracts', () => {
  // The provider's webhook is no caller's creation: its repeat check is the provider's transactionId.
  const exempt = new Set(['post /v1/deposits/momo-webhook']);

  it('is declared on every creating POST', () => {
    const undeclared = ROUTES.filter(
      (route) =>
        route.method === 'post' && route.success.status === 201 && !route.idempotencyKey && !exempt.has(`${route.method} ${route.path}`),
    );
    expect(undeclared.map((route) => route.path)).toEqual([]);
  });

  it('is a header parameter of those routes in the OpenAPI document, required where the route requires it', () => {
    const paths = buildOpenApiDocument({ version: 'test' }).paths as Record<
      string,
      Record<string, { parameters: Array<{ name: string; in: string; required: boolean }> }>
    >;
    for (const route of ROUTES.filter((each) => each.idempotencyKey)) {
      const parameter = paths[route.path]?.[route.method]?.parameters.find((each) => each.name === 'Idempotency-Key');
      expect({ route: route.path, parameter }).toEqual({
        route: route.path,
        parameter: expect.objectContaining({ in: 'header', required: route.idempotencyKey === 'required' }),
      });
    }
  });
});
