import { DASHBOARD_CSRF_HEADER, eventRoutes, LosslessNumber, treasuryRoutes, walletRoutes } from '@wallet/contracts';
import { dashboardAuthRoutes } from '../src/api/auth-routes';
import { createApiClient } from '../src/api/client';
import { ApiError } from '../src/api/errors';
import { answer, startLocalApi } from './local-api';

const WALLET =
  '{"id":"wl_1","tenantId":"tn_1","environment":"live","ownerType":"user","ownerId":"u-1","currencyCode":"USD","balance":"90071992547409.93","status":"frozen","createdAt":"2026-11-23T10:00:00.000Z"}';

const EVENT =
  '{"id":"ev_1","type":"transfer.completed","createdAt":"2026-11-23T10:00:00.000Z","environment":"live","data":{"object":{"amount":"10.50","rate":0.10}}}';

describe('the dashboard API client against a local server', () => {
  let api: Awaited<ReturnType<typeof startLocalApi>>;
  let cookies = '';

  beforeAll(async () => {
    api = await startLocalApi((request, response) => {
      const url = new URL(request.url, 'http://local');
      if (request.method !== 'GET' && request.headers[DASHBOARD_CSRF_HEADER] !== 'csrf-token-1') {
        return answer(
          response,
          403,
          '{"error":{"code":"CSRF_TOKEN_INVALID","message":"CSRF token missing or wrong","correlationId":"corr-csrf"}}',
          { 'x-correlation-id': 'corr-csrf' },
        );
      }
      if (url.pathname === '/v1/wallets/wl_1/freeze') return answer(response, 200, WALLET, { 'x-correlation-id': 'corr-freeze' });
      if (url.pathname === '/v1/wallets') return answer(response, 200, `{"data":[${WALLET}],"nextCursor":null}`);
      if (url.pathname === '/v1/admin/money/balances')
        return answer(
          response,
          200,
          '{"data":[{"currencyCode":"USD","operatingFloat":12.5,"tenantFeeRevenue":"0.00","platformCommission":"0.00","suspense":"0.00","payoutClearing":"0.00"}]}',
        );
      if (url.pathname === '/v1/events/ev_1') return answer(response, 200, EVENT);
      if (url.pathname === '/raw')
        return answer(response, 200, '{"exact":0.1000000000000000055511151231257827,"big":12345678901234567890,"count":42}');
      if (url.pathname === '/v1/auth/session')
        return answer(response, 401, '{"error":{"code":"INVALID_SESSION","message":"No session","correlationId":"corr-body"}}', {
          'x-correlation-id': 'corr-header',
        });
      if (url.pathname === '/proxy-page') return answer(response, 502, '<html>Bad gateway</html>', { 'x-correlation-id': 'corr-proxy' });
      answer(response, 404, '{"error":{"code":"NOT_FOUND","message":"Not found","correlationId":"corr-404"}}');
    });
  });
  afterAll(() => api.close());

  const client = () => createApiClient({ baseUrl: api.origin, readCookies: () => cookies });

  it('echoes the CSRF cookie in the header of a state-changing request, read when the request is sent', async () => {
    cookies = 'theme=dark; wallet_csrf=csrf-token-1; other=x';
    const wallet = await client().call(walletRoutes.freeze, { params: { id: 'wl_1' }, body: { reason: '  suspicious activity ' } });
    expect(wallet.status).toBe('frozen');
    const sent = api.requests.at(-1)!;
    expect(sent.method).toBe('POST');
    expect(sent.headers[DASHBOARD_CSRF_HEADER]).toBe('csrf-token-1');
    // The body went through the contract's schema: the reason arrives trimmed.
    expect(JSON.parse(sent.body)).toEqual({ reason: 'suspicious activity' });

    cookies = 'wallet_csrf=rotated';
    const refused = await client()
      .call(walletRoutes.freeze, { params: { id: 'wl_1' }, body: { reason: 'again' } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 403, code: 'CSRF_TOKEN_INVALID', correlationId: 'corr-csrf' });
    expect(api.requests.at(-1)!.headers[DASHBOARD_CSRF_HEADER]).toBe('rotated');
  });

  it('sends no CSRF header on a read, and puts the query in the URL without unset filters', async () => {
    cookies = 'wallet_csrf=csrf-token-1';
    const page = await client().call(walletRoutes.list, { query: { currencyCode: 'USD', status: undefined, limit: 25 } });
    const sent = api.requests.at(-1)!;
    expect(sent.headers[DASHBOARD_CSRF_HEADER]).toBeUndefined();
    expect(sent.url).toBe('/v1/wallets?limit=25&currencyCode=USD');
    // Money stays the API's string, every digit of it.
    expect(page.data[0]!.balance).toBe('90071992547409.93');
  });

  it('parses answers losslessly: number tokens keep their exact text, safe integers become numbers', async () => {
    const answerBody = (await client().request({ method: 'get', path: '/raw' })).body as Record<string, unknown>;
    expect(answerBody.exact).toBeInstanceOf(LosslessNumber);
    expect(String(answerBody.exact)).toBe('0.1000000000000000055511151231257827');
    expect(String(answerBody.big)).toBe('12345678901234567890');
    expect(answerBody.count).toBe(42);
  });

  it('keeps the text of an answer shown as the server wrote it, beside its checked reading', async () => {
    const { value, text } = await client().callText(eventRoutes.get, { params: { id: 'ev_1' } });
    expect(text).toBe(EVENT);
    expect(value.type).toBe('transfer.completed');
    expect(value.data.object.amount).toBe('10.50');
    expect(String(value.data.object.rate)).toBe('0.10');
  });

  it("refuses an answer whose amount is a JSON number instead of the contract's decimal string", async () => {
    const error = await client()
      .call(treasuryRoutes.balances, {})
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 200 });
  });

  it("turns the API's error body into an ApiError with its code and correlation id", async () => {
    const error = await client()
      .call(dashboardAuthRoutes.session, {})
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 401, code: 'INVALID_SESSION', message: 'No session', correlationId: 'corr-body' });
  });

  it('keeps the correlation id header when the answer is not the API error body', async () => {
    const error = await client()
      .request({ method: 'get', path: '/proxy-page' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 502, code: 'UNKNOWN_ERROR', correlationId: 'corr-proxy' });
  });

  it('checks the body against the route before sending anything', async () => {
    const before = api.requests.length;
    await expect(client().call(walletRoutes.freeze, { params: { id: 'wl_1' }, body: { reason: '   ' } })).rejects.toThrow();
    expect(api.requests.length).toBe(before);
  });

  it('says NETWORK_ERROR when nothing answers', async () => {
    const offline = createApiClient({ baseUrl: 'http://127.0.0.1:1', readCookies: () => '' });
    await expect(offline.call(dashboardAuthRoutes.session, {})).rejects.toMatchObject({
      code: 'NETWORK_ERROR',
      status: 0,
      correlationId: null,
    });
  });
});
