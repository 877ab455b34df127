import { DASHBOARD_CSRF_HEADER, depositRoutes } from '@wallet/contracts';
import { createApiClient } from '../src/api/client';
import { answer, startLocalApi } from './local-api';

const IMPORT =
  '{"id":"bsi_1","bankCode":"STANBIC","currencyCode":"UGX","imported":2,"duplicates":1,"createdAt":"2026-11-23T10:00:00.000Z"}';
const CSV = 'date,reference,amount,description\n2026-11-20,SLIP-1,50000,Cash in\n2026-11-21,SLIP-2,75000,\n';

describe('sending a route its opted-in text/csv body', () => {
  let api: Awaited<ReturnType<typeof startLocalApi>>;

  beforeAll(async () => {
    api = await startLocalApi((request, response) => {
      if (request.headers[DASHBOARD_CSRF_HEADER] !== 'csrf-1')
        return answer(response, 403, '{"error":{"code":"CSRF_TOKEN_INVALID","message":"no","correlationId":"c"}}');
      if (request.url.startsWith('/v1/bank-statements') && request.headers['content-type'] === 'text/csv')
        return answer(response, 201, IMPORT);
      answer(response, 415, '{"error":{"code":"VALIDATION_ERROR","message":"wrong media type","correlationId":"c415"}}');
    });
  });
  afterAll(() => api.close());

  const client = () => createApiClient({ baseUrl: api.origin, readCookies: () => 'wallet_csrf=csrf-1' });

  it('sends the text as it is with its media type, the query, the CSRF header and the idempotency key, and checks the answer', async () => {
    const result = await client().send(depositRoutes.importStatement, {
      query: { bankCode: 'STANBIC', currencyCode: 'UGX' },
      text: CSV,
      mediaType: 'text/csv',
      idempotencyKey: 'key-1',
    });
    expect(result).toEqual({
      id: 'bsi_1',
      bankCode: 'STANBIC',
      currencyCode: 'UGX',
      imported: 2,
      duplicates: 1,
      createdAt: '2026-11-23T10:00:00.000Z',
    });
    const sent = api.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', url: '/v1/bank-statements?bankCode=STANBIC&currencyCode=UGX', body: CSV });
    expect(sent.headers['content-type']).toBe('text/csv');
    expect(sent.headers[DASHBOARD_CSRF_HEADER]).toBe('csrf-1');
    expect(sent.headers['idempotency-key']).toBe('key-1');
  });

  it('refuses, before sending, a media type the route does not opt into and a body over its limit', async () => {
    const before = api.requests.length;
    const route = { ...depositRoutes.importStatement, bodyOptIn: { mediaTypes: ['text/csv'], limitBytes: 8 } } as const;
    await expect(client().send(route, { text: CSV, mediaType: 'text/csv' })).rejects.toThrow('at most 8 bytes');
    // A type outside the declaration, as an untyped caller could pass it.
    await expect(client().send(depositRoutes.importStatement, { text: CSV, mediaType: 'text/plain' as 'text/csv' })).rejects.toThrow(
      'takes no text/plain body',
    );
    expect(api.requests.length).toBe(before);
  });
});
