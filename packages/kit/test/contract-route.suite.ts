import express, { Router } from 'express';
import { closeServer, expressPath, listen, mountRoute, routeName } from '@wallet/kit';

describe('mountRoute', () => {
  let server: Awaited<ReturnType<typeof listen>>;
  let base = '';

  beforeAll(async () => {
    const router = Router();
    mountRoute(router, { method: 'post', path: '/v1/things/{id}/parts' }, (request, response) => {
      response.json({ id: request.params.id });
    });
    const app = express();
    app.use(router);
    app.use((_request, response) => response.status(404).json({ matched: false }));
    server = await listen(app, 0, '127.0.0.1');
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    await closeServer(server);
  });

  it("answers the contract's method at its path, the parameter in request.params", async () => {
    const answer = await fetch(`${base}/v1/things/th_1/parts`, { method: 'POST' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ id: 'th_1' });
  });

  it('answers no other method, nor an empty segment, which the bare template would match ({id} an optional part to express)', async () => {
    expect((await fetch(`${base}/v1/things/th_1/parts`)).status).toBe(404);
    expect((await fetch(`${base}/v1/things//parts`, { method: 'POST' })).status).toBe(404);
  });

  it('turns each {name} into :name, and names a route as messages do', () => {
    expect(expressPath('/v1/wallets/{walletId}/holds/{id}')).toBe('/v1/wallets/:walletId/holds/:id');
    expect(routeName({ method: 'post', path: '/v1/transfers/{id}/reversals' })).toBe('POST /v1/transfers/{id}/reversals');
  });
});
