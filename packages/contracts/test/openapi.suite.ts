import { z } from 'zod';
import { buildOpenApiDocument, ERROR_STATUS, EVENT_TYPES, type ErrorCode, ROUTES, type RouteContract, transferSchema } from '../src';
import { routeErrorCodes } from '../src/openapi-errors';
import { ROUTE_EXAMPLES } from '../src/openapi-examples';

interface Answer {
  description: string;
  $ref?: string;
  content?: Record<string, { schema: Record<string, unknown>; example?: unknown }>;
  'x-error-codes'?: ErrorCode[];
}
interface Operation {
  operationId?: string;
  responses: Record<string, Answer>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown>; example?: unknown }> };
}
interface Document {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post: Operation }>;
  components: { schemas: Record<string, unknown> };
}

const document = buildOpenApiDocument({ version: 'test' }) as unknown as Document;
const operationOf = (route: RouteContract): Operation => document.paths[route.path]?.[route.method] as Operation;
const byOperationId = new Map(ROUTES.map((route) => [route.operationId, route]));

/** Error codes a summary names, as words; 5xx have their shared answers. */
function codesNamedIn(text: string): ErrorCode[] {
  return [...text.matchAll(/\b[A-Z][A-Z0-9_]+\b/g)]
    .map((match) => match[0])
    .filter((word): word is ErrorCode => word in ERROR_STATUS && ERROR_STATUS[word as ErrorCode] < 500);
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1, served from the gateway that serves it', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(buildOpenApiDocument({ version: 'test', serverUrl: 'https://api.wallet.test' }).servers).toEqual([
      expect.objectContaining({ url: 'https://api.wallet.test' }),
    ]);
  });

  it('names every route once, with a name safe in a URL', () => {
    const names = ROUTES.map((route) => route.operationId);
    expect(
      names.filter((name) => name === undefined || !/^[a-z][A-Za-z0-9]*(\.[a-z][A-Za-z0-9]*)+$|^[a-z][A-Za-z0-9]*$/.test(name)),
    ).toEqual([]);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    for (const route of ROUTES) expect(operationOf(route).operationId).toBe(route.operationId);
  });

  it('documents every error code a route says it answers, under its status', () => {
    for (const route of ROUTES) {
      const responses = operationOf(route).responses;
      for (const code of codesNamedIn(route.summary))
        expect({ route: route.operationId, code, codes: responses[String(ERROR_STATUS[code])]?.['x-error-codes'] }).toEqual({
          route: route.operationId,
          code,
          codes: expect.arrayContaining([code]),
        });
    }
  });

  it('gives each 4xx answer the Error body and codes of its own status only', () => {
    for (const route of ROUTES) {
      for (const [status, answer] of Object.entries(operationOf(route).responses).filter(([status]) => /^4/.test(status))) {
        expect(answer.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
        expect(answer['x-error-codes']?.length).toBeGreaterThan(0);
        expect((answer['x-error-codes'] ?? []).filter((code) => String(ERROR_STATUS[code]) !== status)).toEqual([]);
      }
    }
    expect(document.components.schemas.Error).toBeDefined();
  });

  it('adds what every route of its kind answers: its surface, body, query, path ids and Idempotency-Key', () => {
    const has = (route: RouteContract, codes: ErrorCode[]) => expect(routeErrorCodes(route)).toEqual(expect.arrayContaining(codes));
    for (const route of ROUTES) {
      has(route, ['VALIDATION_ERROR', 'RATE_LIMITED']);
      if (route.surface === 'tenant')
        has(route, ['MISSING_CREDENTIALS', 'INVALID_API_KEY', 'INVALID_REQUEST_SIGNATURE', 'INSUFFICIENT_SCOPE']);
      if (route.surface === 'system') has(route, ['MISSING_CREDENTIALS', 'INVALID_SYSTEM_KEY']);
      if (route.surface === 'public') expect(routeErrorCodes(route)).not.toContain('MISSING_CREDENTIALS');
      if (route.body) has(route, ['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE']);
      if (route.query?.shape.cursor) has(route, ['INVALID_CURSOR']);
      if (route.path.includes('{')) has(route, ['NOT_FOUND']);
      if (route.idempotencyKey) has(route, ['IDEMPOTENCY_REQUEST_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED']);
      if (route.idempotencyKey === 'required') has(route, ['IDEMPOTENCY_KEY_REQUIRED']);
    }
  });

  it('documents 202 wherever a route says it answers one: the money movements the ledger may not confirm in time, and full runs', () => {
    const answering202 = ROUTES.filter((route) => operationOf(route).responses['202']).map((route) => route.operationId);
    expect(ROUTES.filter((route) => /\b202\b/.test(route.summary)).map((route) => route.operationId)).toEqual(answering202);
    expect(answering202.sort()).toEqual([
      'deposits.momoWebhook',
      'deposits.verify',
      'payouts.approve',
      'payouts.create',
      'payouts.reject',
      'reconciliation.fullRuns.start',
      'reconciliation.fullRuns.startAcrossTenants',
      'transfers.create',
      'transfers.reverse',
      'treasury.floatDeposits.create',
      'treasury.withdrawals.approve',
      'treasury.withdrawals.create',
      'treasury.withdrawals.reject',
      'webhookEndpoints.replay',
      'webhookEndpoints.sendTest',
    ]);
    expect(Object.keys(operationOf(byOperationId.get('deposits.momoWebhook') as RouteContract).responses)).toEqual(
      expect.arrayContaining(['200', '201', '202']),
    );
  });

  it('names the objects answers hold once, as components', () => {
    const transfer = { $ref: '#/components/schemas/Transfer' };
    expect(document.paths['/v1/transfers/{id}']?.get?.responses['200']?.content?.['application/json']?.schema).toEqual(transfer);
    const page = document.paths['/v1/transfers']?.get?.responses['200']?.content?.['application/json']?.schema as {
      properties: { data: { items: unknown } };
    };
    expect(page.properties.data.items).toEqual(transfer);
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Error', 'Wallet', 'Transfer', 'Deposit', 'PayoutCase', 'Withdrawal', 'FloatDeposit', 'JournalEntry']),
    );
    const references = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((match) => match[1]);
    expect(references.filter((name) => !(name && name in document.components.schemas))).toEqual([]);
    expect(Object.keys(document.components.schemas).filter((name) => !references.includes(name))).toEqual([]);
  });
});

describe('examples of the money routes', () => {
  it('name routes of the document, and answers those routes give', () => {
    for (const [operationId, examples] of Object.entries(ROUTE_EXAMPLES)) {
      const route = byOperationId.get(operationId);
      expect({ operationId, found: route !== undefined }).toEqual({ operationId, found: true });
      if (!route) continue;
      const statuses = [route.success.status, ...Object.keys(route.alsoAnswers ?? {}).map(Number)];
      expect({ operationId, statuses: Object.keys(examples.responses).map(Number) }).toEqual({
        operationId,
        statuses: expect.arrayContaining([route.success.status]),
      });
      for (const status of Object.keys(examples.responses).map(Number)) expect(statuses).toContain(status);
    }
  });

  it("hold what the routes' schemas take and give, amounts as decimal strings", () => {
    for (const [operationId, examples] of Object.entries(ROUTE_EXAMPLES)) {
      const route = byOperationId.get(operationId) as RouteContract;
      if (examples.request) expect({ operationId, issues: route.body?.safeParse(examples.request).error?.issues }).toEqual({ operationId });
      for (const answer of Object.values(examples.responses)) {
        expect({ operationId, issues: route.success.schema.safeParse(answer).error?.issues }).toEqual({ operationId });
        const amounts = JSON.stringify(answer).match(/"(amount|fee|balance)":[^,}]+/g) ?? [];
        for (const amount of amounts) expect(amount).toMatch(/:"\d+\.\d{2}"$/);
      }
    }
  });

  it('cover every money movement, request and answers, and are in the document', () => {
    const moving = ROUTES.filter((route) => route.idempotencyKey === 'required' || route.alsoAnswers?.[202] !== undefined);
    for (const route of moving) {
      const examples = ROUTE_EXAMPLES[route.operationId ?? ''];
      expect({ route: route.operationId, request: examples?.request !== undefined }).toEqual({ route: route.operationId, request: true });
      const operation = operationOf(route);
      expect(operation.requestBody?.content['application/json']?.example).toEqual(examples?.request);
      for (const status of [route.success.status, ...Object.keys(route.alsoAnswers ?? {})])
        expect({
          route: route.operationId,
          status,
          example: operation.responses[String(status)]?.content?.['application/json']?.example,
        }).toEqual({
          route: route.operationId,
          status,
          example: expect.anything(),
        });
    }
  });
});

describe('webhooks, the extension point for events', () => {
  it('are left out while no event is listed', () => {
    expect(buildOpenApiDocument({ version: 'test', webhooks: [] })).not.toHaveProperty('webhooks');
  });

  it('document every event type the platform sends, each with its object', () => {
    expect(Object.keys(document.webhooks ?? {}).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('document each event given as a POST of its body, its named objects as components', () => {
    const event = z.object({ id: z.string(), type: z.literal('transfer.completed'), data: z.object({ object: transferSchema }) });
    const withEvents = buildOpenApiDocument({
      version: 'test',
      webhooks: [{ type: 'transfer.completed', schema: event }],
    }) as unknown as Document;
    const operation = withEvents.webhooks?.['transfer.completed']?.post;
    expect(operation?.operationId).toBe('webhooks.transfer.completed');
    expect(operation?.requestBody?.content['application/json']?.schema).toMatchObject({
      properties: { data: { properties: { object: { $ref: '#/components/schemas/Transfer' } } } },
    });
  });
});
