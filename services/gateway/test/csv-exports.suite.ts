import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PAGE_LIMIT_MAX } from '@wallet/contracts';
import type { Authenticator } from '../src/features/auth/principal';
import { gatewayEnv, type GatewayClient, prepareGatewayInfrastructure, startGateway } from './support';

/**
 * An export walks the list's pages as the caller and streams them as CSV: a list service of
 * three pages stands behind the gateway here, and records every page the gateway asked for.
 */
const tenantKey: Authenticator = async () => ({
  surface: 'tenant',
  authMode: 'secret',
  tenantId: 'tn_export',
  environment: 'live',
  keyId: 'ak_export',
  scopes: ['wallets:read'],
  actor: null,
});

const transfer = (index: number, extra: Record<string, unknown> = {}) => ({
  id: `tx_${index}`,
  fromWalletId: 'wl_a',
  toWalletId: 'wl_b',
  amount: `${index}.10`,
  fee: '0.00',
  currencyCode: 'UGX',
  status: 'completed',
  journalEntryId: `je_${index}`,
  failureCode: null,
  description: index === 2 ? '=cmd|"/c calc"!A1, a formula' : null,
  createdAt: `2026-11-0${index}T10:00:00.000Z`,
  ...extra,
});

/** The list's pages by cursor; `broken` answers its second page with a 503, as a service going down mid-export would. */
const PAGES: Record<string, { data: unknown[]; nextCursor: string | null }> = {
  '': { data: [transfer(3), transfer(2)], nextCursor: 'c1' },
  c1: { data: [transfer(1)], nextCursor: 'c2' },
  c2: { data: [], nextCursor: null },
};

let asked: URLSearchParams[] = [];
let server: http.Server;
let client: GatewayClient;

beforeAll(async () => {
  await prepareGatewayInfrastructure('gateway_exports');
  server = http.createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://list').searchParams;
    asked.push(query);
    if (query.get('status') === 'bogus') {
      response.writeHead(400, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ error: { code: 'VALIDATION_ERROR', message: 'status: bogus', correlationId: 'x' } }));
    }
    if (query.get('walletId') === 'wl_broken' && query.get('cursor') === 'c1') {
      response.writeHead(503, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'down', correlationId: 'x' } }));
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(PAGES[query.get('cursor') ?? '']));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = await startGateway(gatewayEnv({ identity: url }), { tenantAuthenticators: [tenantKey] });
});

afterAll(async () => {
  await client?.gateway.close();
  await new Promise((resolve) => server?.close(resolve));
});

beforeEach(() => {
  asked = [];
});

it('walks every page with the largest page size and the filters given, and writes each record as a CSV row', async () => {
  const response = await fetch(`${client.publicUrl}/v1/exports/transfers?status=completed&createdFrom=2026-11-01T00:00:00.000Z&limit=5`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="transfers-[0-9T-]+Z\.csv"$/);
  const lines = (await response.text()).split('\r\n');
  expect(lines).toEqual([
    'id,fromWalletId,toWalletId,amount,currencyCode,fee,status,journalEntryId,failureCode,description,createdAt',
    'tx_3,wl_a,wl_b,3.10,UGX,0.00,completed,je_3,,,2026-11-03T10:00:00.000Z',
    `tx_2,wl_a,wl_b,2.10,UGX,0.00,completed,je_2,,"'=cmd|""/c calc""!A1, a formula",2026-11-02T10:00:00.000Z`,
    'tx_1,wl_a,wl_b,1.10,UGX,0.00,completed,je_1,,,2026-11-01T10:00:00.000Z',
    '',
  ]);
  // The caller's paging is the export's own: the largest page, the filters as given, each cursor followed once.
  expect(asked.map((query) => Object.fromEntries(query))).toEqual(
    ['', 'c1', 'c2'].map((cursor) => ({
      status: 'completed',
      createdFrom: '2026-11-01T00:00:00.000Z',
      limit: String(PAGE_LIMIT_MAX),
      ...(cursor ? { cursor } : {}),
    })),
  );
});

it("answers a filter the export's own schema refuses with 400 before asking the list", async () => {
  const response = await fetch(`${client.publicUrl}/v1/exports/transfers?createdFrom=yesterday`);
  expect(response.status).toBe(400);
  expect(asked).toEqual([]);
});

it("passes the list's refusal of the first page on as it is", async () => {
  const response = await fetch(`${client.publicUrl}/v1/exports/deposits`);
  expect(response.status).toBe(200);
  const refused = await fetch(`${client.publicUrl}/v1/exports/transfers?status=bogus`);
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_ERROR');
});

it('ends an export whose list fails after its first rows as an incomplete answer, never as a complete file', async () => {
  const response = await fetch(`${client.publicUrl}/v1/exports/transfers?walletId=wl_broken`);
  expect(response.status).toBe(200);
  await expect(response.text()).rejects.toThrow();
});

it('needs the list’s scope', async () => {
  const response = await fetch(`${client.publicUrl}/v1/exports/payouts`);
  expect(response.status).toBe(403);
});
