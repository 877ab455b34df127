import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  buildOpenApiDocument,
  ID_PREFIXES,
  type IdKind,
  idPattern,
  momoWebhookSignature,
  ROUTES,
  type RouteContract,
  SCOPES,
  signRequest,
} from '@wallet/contracts';

/**
 * The fuzz suite's one generator: requests for every route of the OpenAPI document, first
 * valid-ish (drawn from the route's schemas, seeded with the ids of a real world), then mutated.
 * Every random choice is a fast-check arbitrary, so a seed and a case number give the same
 * request again (against the same world).
 */

// ---------------------------------------------------------------------------------------------
// JSON values that can say what JSON.stringify cannot: raw number tokens, duplicate keys and
// `__proto__` as an own key.

/** Written verbatim: a number token (`1e400`, `-0`, 131,073 digits) or any raw JSON text. */
export class JsonToken {
  constructor(readonly text: string) {}
}

/** An object as an ordered list of members: a key may appear twice, `__proto__` is a plain key. */
export class JsonObject {
  constructor(public entries: Array<[string, JsonValue]>) {}

  get(key: string): JsonValue | undefined {
    for (let i = this.entries.length - 1; i >= 0; i -= 1) if (this.entries[i]?.[0] === key) return this.entries[i]?.[1];
    return undefined;
  }

  has(key: string): boolean {
    return this.entries.some(([name]) => name === key);
  }

  set(key: string, value: JsonValue): void {
    const index = this.entries.findIndex(([name]) => name === key);
    if (index < 0) this.entries.push([key, value]);
    else this.entries[index] = [key, value];
  }
}

export type JsonValue = null | boolean | string | JsonToken | JsonObject | JsonValue[];

export function jsonText(value: JsonValue): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (value instanceof JsonToken) return value.text;
  if (value instanceof JsonObject)
    return `{${value.entries.map(([key, member]) => `${JSON.stringify(key)}:${jsonText(member)}`).join(',')}}`;
  return `[${value.map(jsonText).join(',')}]`;
}

function cloneJson(value: JsonValue): JsonValue {
  if (value instanceof JsonObject) return new JsonObject(value.entries.map(([key, member]) => [key, cloneJson(member)]));
  if (Array.isArray(value)) return value.map(cloneJson);
  return value;
}

// ---------------------------------------------------------------------------------------------
// The operations, read from the OpenAPI document the gateway serves.

/** The subset of JSON Schema (2020-12, as OpenAPI 3.1 has it) the contracts produce. */
export interface JsonSchema {
  /** Several for a field that takes any of them: an amount is `["string", "number"]`, `"null"` too when it may be null. */
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

export interface FuzzOperation {
  route: RouteContract;
  method: string;
  /** The OpenAPI path template, `/v1/wallets/{id}`. */
  template: string;
  pathParams: string[];
  queryParams: Array<{ name: string; schema: JsonSchema }>;
  bodySchema?: JsonSchema;
  /** Media types taken besides JSON (the CSV statement import). */
  otherMediaTypes: string[];
}

interface OpenApiOperation {
  parameters: Array<{ name: string; in: string; schema: JsonSchema }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

export function fuzzOperations(): FuzzOperation[] {
  const document = buildOpenApiDocument({ version: 'fuzz' }) as { paths: Record<string, Record<string, OpenApiOperation>> };
  return ROUTES.map((route) => {
    const operation = document.paths[route.path]?.[route.method];
    if (!operation) throw new Error(`the OpenAPI document has no ${route.method} ${route.path}`);
    const content = operation.requestBody?.content ?? {};
    return {
      route,
      method: route.method.toUpperCase(),
      template: route.path,
      pathParams: operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
      queryParams: operation.parameters.filter((parameter) => parameter.in === 'query').map(({ name, schema }) => ({ name, schema })),
      bodySchema: content['application/json']?.schema,
      otherMediaTypes: Object.keys(content).filter((mediaType) => mediaType !== 'application/json'),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The world: real ids the requests are seeded with, and whose they are.

export type ResourceKind =
  | 'tenant'
  | 'apiKey'
  | 'member'
  | 'momoProvider'
  | 'wallet'
  | 'feeSchedule'
  | 'deposit'
  | 'transfer'
  | 'payoutCase'
  | 'floatDeposit'
  | 'withdrawal'
  | 'journalEntry'
  | 'reconciliationRun'
  | 'account'
  | 'deadLetter'
  | 'webhookEndpoint'
  | 'event'
  | 'feeRule'
  | 'statementMatch';

const ID_KIND_OF: Record<ResourceKind, IdKind> = {
  tenant: 'tenant',
  apiKey: 'apiKey',
  member: 'user',
  momoProvider: 'momoProvider',
  wallet: 'wallet',
  feeSchedule: 'feeSchedule',
  deposit: 'deposit',
  transfer: 'transfer',
  payoutCase: 'payoutCase',
  floatDeposit: 'floatDeposit',
  // Withdrawals are cases too: `pc_` ids.
  withdrawal: 'payoutCase',
  journalEntry: 'journalEntry',
  reconciliationRun: 'reconciliationRun',
  // Ledger accounts are named by the platform's balance route only; the world seeds none, so those calls are 404s.
  account: 'account',
  // Nothing is dead-lettered in the world: the platform's dead-letter routes that name one are 404s.
  deadLetter: 'deadLetter',
  webhookEndpoint: 'webhookEndpoint',
  event: 'event',
  // The world seeds no rule removal's target nor any match: those calls are 404s, or refusals of the body.
  feeRule: 'feeRule',
  statementMatch: 'statementMatch',
};

export function idPrefixOf(kind: ResourceKind): string {
  return ID_PREFIXES[ID_KIND_OF[kind]];
}

export function idShapeOf(kind: ResourceKind): RegExp {
  return idPattern(ID_KIND_OF[kind]);
}

/** Resources that belong to one environment: the other environment must not see them. */
export const ENVIRONMENT_BOUND: ReadonlySet<ResourceKind> = new Set([
  'apiKey',
  'wallet',
  'deposit',
  'transfer',
  'payoutCase',
  'floatDeposit',
  'withdrawal',
  'journalEntry',
  'webhookEndpoint',
  'event',
  'statementMatch',
]);

export type Owner = 'own' | 'otherEnvironment' | 'otherTenant';
export type IdPools = Record<ResourceKind, string[]>;

export function emptyPools(): IdPools {
  return {
    tenant: [],
    apiKey: [],
    member: [],
    momoProvider: [],
    wallet: [],
    feeSchedule: [],
    deposit: [],
    transfer: [],
    payoutCase: [],
    floatDeposit: [],
    withdrawal: [],
    journalEntry: [],
    reconciliationRun: [],
    account: [],
    deadLetter: [],
    webhookEndpoint: [],
    event: [],
    feeRule: [],
    statementMatch: [],
  };
}

export interface WalletRef {
  id: string;
  currencyCode: string;
  /** `wallet:<ownerId>`, its ledger account. */
  accountName: string;
}

/** What the fuzz tenant's main credentials are; finalize() turns a credential choice into headers. */
export interface FuzzCredentials {
  secretKey: string;
  hmac: { keyId: string; signingSecret: string };
  sessionToken: string;
  systemKey: string;
  /** A revoked key of the fuzz tenant: a credential that must not work. */
  revokedSecretKey: string;
}

export interface FuzzWorld {
  /** Tenant A, live: the tenant every tenant request acts as. */
  tenantId: string;
  tenantSlug: string;
  maxTransactionAmount: string;
  currencies: string[];
  ids: Record<Owner, IdPools>;
  /** Ids the harness lives on (its keys, members, provider, funded wallets, tenants): no destructive route is pointed at them. */
  protectedIds: Set<string>;
  /** Tenant A's live wallets, with currency and account. */
  wallets: WalletRef[];
  /** Those of them that hold money, the first more than the tenant's maximum: sends from them reach the ledger. */
  fundedWallets: string[];
  /** Members of tenant A who may request (operator) and decide (approver) money movements. */
  members: { requester: string; approver: string; loginEmail: string; loginPassword: string };
  providerCode: string;
  webhookSecret: string;
  /** Cursors each list (by route template) has issued, to send again and to forge from. */
  cursors: Record<string, string[]>;
  /**
   * The path of the list that issued each cursor: a cursor is bound to it (and to the caller's
   * tenant and environment), so any other list, another wallet's statement included, refuses it.
   */
  cursorPaths: Record<string, string>;
  /** The tenant each known resource belongs to: a system route names a schedule or key under its own tenant. */
  tenantOf: Record<string, string>;
  /** Invite tokens from the emails identity sent (organizations created with an admin). */
  inviteTokens: string[];
  credentials: FuzzCredentials;
  /** Idempotency keys already sent, so a case can reuse one with another body. */
  usedIdempotencyKeys: string[];
}

// ---------------------------------------------------------------------------------------------
// Requests.

export type Credential =
  | { kind: 'secret' }
  | { kind: 'hmac'; nonce?: string; timestamp?: string; contentSha256?: string; badSignature?: boolean; omit?: string }
  | { kind: 'session' }
  | { kind: 'system' }
  | { kind: 'none' }
  | { kind: 'other'; label: string; headers: Record<string, string> };

/** A request being built: the base, then each mutation, then finalize(). */
export interface Draft {
  operation: FuzzOperation;
  listener: 'public' | 'admin';
  method: string;
  /** Percent-encoded path segments by parameter name. */
  pathParams: Record<string, string>;
  /** Replaces the path built from the template (trailing slashes, dot segments and the like). */
  pathOverride?: string;
  /** Percent-encoded key and value pairs, in order. */
  query: Array<[string, string]>;
  body?: JsonValue;
  /** Replaces the serialized body byte for byte. */
  rawBody?: Buffer;
  /** The media type sent with a body; null sends none. */
  contentType: string | null;
  encoding: 'utf8' | 'utf16le' | 'latin1';
  headers: Record<string, string>;
  credential: Credential;
  /** The webhook's signature is computed over the final fields unless a mutation broke it on purpose. */
  signWebhook: boolean;
  tags: string[];
}

/** A request as sent: bytes, headers and what was done to it. */
export interface FuzzRequest {
  index: number;
  operation: FuzzOperation;
  listener: 'public' | 'admin';
  method: string;
  pathParams: Record<string, string>;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: Buffer | null;
  credential: Credential;
  tags: string[];
}

interface GenerationContext {
  world: FuzzWorld;
  index: number;
}

// ---- valid-ish values from a schema ----------------------------------------------------------

const jsonLeaf: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -1000, max: 1000 }).map((value) => new JsonToken(String(value))),
);
const anyJson: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 4, arbitrary: jsonLeaf },
  { weight: 1, arbitrary: fc.array(jsonLeaf, { maxLength: 3 }) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), jsonLeaf), { maxLength: 3 })
      .map((entries) => new JsonObject(entries)),
  },
);

function isoNear(offsetSeconds: fc.Arbitrary<number>): fc.Arbitrary<string> {
  return offsetSeconds.map((offset) => new Date(Math.floor(Date.now() / 1000) * 1000 + offset * 1000).toISOString());
}

/**
 * Dates at and just past both ends of the API's date domain, [1970-01-01, 9999-12-31), and of
 * what PostgreSQL and JavaScript dates hold: a range the API derives from one (analytics' default
 * from, 30 days before to) must not leave them either.
 */
const DATE_TIME_EDGES = [
  '0001-01-01T00:00:00.000Z',
  '1969-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00.000Z',
  '1970-01-15T00:00:00.000Z',
  '9999-12-30T23:59:59.999Z',
  '9999-12-31T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
];
const DATE_EDGES = ['0001-01-01', '1969-12-31', '1970-01-01', '9999-12-30', '9999-12-31'];

/** Regular-expression arbitraries are costly to build: one per pattern for the whole run. */
const patternArbitraries = new Map<string, fc.Arbitrary<string>>();

function patternArb(pattern: string): fc.Arbitrary<string> {
  let arbitrary = patternArbitraries.get(pattern);
  if (!arbitrary) {
    arbitrary = fc.stringMatching(new RegExp(pattern));
    patternArbitraries.set(pattern, arbitrary);
  }
  return arbitrary;
}

function stringArb(schema: JsonSchema, context: GenerationContext): fc.Arbitrary<JsonValue> {
  if (schema.format === 'email') return fc.nat({ max: 1_000_000 }).map((n) => `fz${context.index}-${n}@example.com`);
  if (schema.format === 'date-time')
    return fc.oneof(
      { weight: 6, arbitrary: isoNear(fc.integer({ min: -86_400 * 20, max: 86_400 })) },
      { weight: 1, arbitrary: fc.constantFrom(...DATE_TIME_EDGES) },
    );
  if (schema.format === 'date') {
    const recent = fc.integer({ min: 0, max: 30 }).map((days) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10));
    return fc.oneof({ weight: 6, arbitrary: recent }, { weight: 1, arbitrary: fc.constantFrom(...DATE_EDGES) });
  }
  if (schema.pattern) return patternArb(schema.pattern);
  const minLength = schema.minLength ?? 0;
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 24, 24)) });
}

function objectArb(schema: JsonSchema, path: string[], context: GenerationContext, operation: FuzzOperation): fc.Arbitrary<JsonValue> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const members = properties.map(([name, property]) => {
    const value = valueArb(property, [...path, name], context, operation);
    return required.has(name)
      ? value.map((member) => [name, member] as [string, JsonValue])
      : fc.option(
          value.map((member) => [name, member] as [string, JsonValue]),
          { nil: undefined, freq: 2 },
        );
  });
  return fc
    .tuple(...members)
    .map((entries) => new JsonObject(entries.filter((entry): entry is [string, JsonValue] => entry !== undefined)));
}

function schemaArb(schema: JsonSchema, path: string[], context: GenerationContext, operation: FuzzOperation): fc.Arbitrary<JsonValue> {
  let arbitrary: fc.Arbitrary<JsonValue>;
  const alternatives =
    schema.anyOf ?? schema.oneOf ?? (Array.isArray(schema.type) ? schema.type.map((type) => ({ ...schema, type })) : undefined);
  if (schema.enum)
    arbitrary = fc.constantFrom(
      ...schema.enum.map((value) => (typeof value === 'number' ? new JsonToken(String(value)) : (value as JsonValue))),
    );
  else if (alternatives) arbitrary = fc.oneof(...alternatives.map((alternative) => valueArb(alternative, path, context, operation)));
  else if (schema.type === 'object' || schema.properties) arbitrary = objectArb(schema, path, context, operation);
  else if (schema.type === 'array') {
    const minLength = schema.minItems ?? 0;
    arbitrary = fc.array(valueArb(schema.items ?? {}, [...path, '0'], context, operation), {
      minLength,
      maxLength: Math.min(schema.maxItems ?? minLength + 3, minLength + 3),
    });
  } else if (schema.type === 'string') arbitrary = stringArb(schema, context);
  else if (schema.type === 'integer')
    arbitrary = fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000 }).map((value) => new JsonToken(String(value)));
  else if (schema.type === 'number')
    arbitrary = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((value) => new JsonToken(String(value)));
  else if (schema.type === 'boolean') arbitrary = fc.boolean();
  else if (schema.type === 'null') arbitrary = fc.constant(null);
  else arbitrary = anyJson;
  return arbitrary;
}

/** A value for a field: mostly what the world makes meaningful there, sometimes anything the schema allows. */
function valueArb(schema: JsonSchema, path: string[], context: GenerationContext, operation: FuzzOperation): fc.Arbitrary<JsonValue> {
  const hint = fieldHint(path[path.length - 1] ?? '', operation, context);
  const fromSchema = schemaArb(schema, path, context, operation);
  return hint ? fc.oneof({ weight: 7, arbitrary: hint }, { weight: 1, arbitrary: fromSchema }) : fromSchema;
}

// ---- what the world makes meaningful ---------------------------------------------------------

const DECISION_ROUTES = /^\/v1\/(payouts|admin\/money\/withdrawals)/;

const validAmount: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.integer({ min: 1, max: 5_000 }).map(String),
  fc
    .tuple(fc.integer({ min: 0, max: 900 }), fc.integer({ min: 1, max: 99 }))
    .map(([units, cents]) => `${units}.${String(cents).padStart(2, '0')}`),
  fc.integer({ min: 1, max: 900 }).map((value) => new JsonToken(String(value))),
);

/** A decision is the approver's, a slip's verification the requester's (an operator); now and then the other one, who is refused. */
function actorIdHint(operation: FuzzOperation, world: FuzzWorld): fc.Arbitrary<JsonValue> {
  const { approver, requester } = world.members;
  const [permitted, refused] = DECISION_ROUTES.test(operation.template) ? [approver, requester] : [requester, approver];
  return fc.constantFrom(permitted, permitted, refused);
}

function fieldHint(field: string, operation: FuzzOperation, context: GenerationContext): fc.Arbitrary<JsonValue> | undefined {
  const { world, index } = context;
  const walletIds = world.wallets.map((wallet) => wallet.id);
  switch (field) {
    case 'walletId':
      if (operation.template === '/v1/deposits/momo-webhook')
        return fc.constantFrom(...walletIds, ...world.ids.otherEnvironment.wallet.slice(0, 2));
      return fc.oneof(fc.constantFrom(...world.fundedWallets), fc.constantFrom(...walletIds));
    case 'fromWalletId':
      return fc.oneof(fc.constantFrom(...world.fundedWallets), fc.constantFrom(...walletIds));
    case 'toWalletId':
      return fc.constantFrom(...walletIds);
    case 'currencyCode':
    case 'defaultCurrency':
      return fc.constantFrom('KES', 'KES', 'KES', ...world.currencies);
    case 'allowedCurrencies':
      return fc.constantFrom(['KES'], ['KES', 'UGX']);
    case 'amount':
      return validAmount;
    case 'maxTransactionAmount':
      return fc.constantFrom<JsonValue>('1000', '250000.50', new JsonToken('5000'));
    case 'minAmount':
    case 'maxAmount':
    case 'minFee':
    case 'maxFee':
      return fc.option(fc.constantFrom('1.00', '100', '5000.50'), { nil: null });
    case 'flatFee':
      return fc.constantFrom('0', '0.50', '1');
    case 'percentageFee':
      return fc.constantFrom('0', '0.5', '1.25');
    case 'requestedBy':
      return fc.constantFrom(world.members.requester, world.members.requester, world.members.approver);
    case 'depositedBy':
      return fc.constantFrom(world.members.requester, world.members.approver);
    case 'actorId':
      return actorIdHint(operation, world);
    case 'transactionId':
      return fc.nat({ max: 9999 }).map((n) => `fz-tx-${index}-${n}`);
    case 'reference':
      return fc.nat({ max: 9999 }).map((n) => `fz-ref-${index}-${n}`);
    case 'slipReference':
      return fc.nat({ max: 9999 }).map((n) => `FZ-SLIP-${index}-${n}`);
    case 'phoneNumber':
      return fc.constantFrom('+254700000001', '256770000002');
    case 'timestamp':
      return isoNear(fc.integer({ min: -60, max: 0 }));
    case 'signature':
      return fc.constant('computed-at-send');
    case 'providerCode':
      return operation.template === '/v1/admin/momo-providers'
        ? fc.nat({ max: 9999 }).map((n) => `fz${index}p${n}`)
        : fc.constant(world.providerCode);
    case 'email':
      return operation.template === '/v1/auth/login' ? fc.constant(world.members.loginEmail) : undefined;
    case 'password':
      return operation.template === '/v1/auth/login'
        ? fc.constantFrom(world.members.loginPassword, 'not the password at all')
        : fc.constant('a long enough password');
    case 'slug':
      return fc.nat({ max: 9999 }).map((n) => `fz-${index}-${n}`);
    case 'tenantSlug':
      return fc.constant(world.tenantSlug);
    case 'ownerId':
      return fc.nat({ max: 9999 }).map((n) => `owner-${index}-${n}`);
    case 'bankCode':
      return fc.constantFrom('stanbic', 'equity');
    case 'scopes':
      return fc.subarray([...SCOPES], { minLength: 1, maxLength: 4 });
    case 'expiresInSeconds':
      return fc.constantFrom(new JsonToken('3600'), new JsonToken('86400'));
    case 'environment':
      return fc.constantFrom('live', 'test');
    case 'makeDefault':
    case 'isDefault':
      return fc.constant(false);
    case 'lines':
      return fc.nat({ max: 9999 }).map((n) => [
        new JsonObject([
          ['date', new Date().toISOString().slice(0, 10)],
          ['reference', `fz-ref-${index}-${n}`],
          ['amount', '25.00'],
        ]),
      ]);
    case 'token':
      return operation.template === '/v1/auth/accept-invite' && world.inviteTokens.length > 0
        ? fc.constantFrom(...world.inviteTokens)
        : fc.constant(`sess_fuzz${index}`);
    case 'platformCommissionBps':
      return fc.integer({ min: 0, max: 10_000 }).map((value) => new JsonToken(String(value)));
    default:
      return undefined;
  }
}

// ---- query values -----------------------------------------------------------------------------

function queryHint(name: string, operation: FuzzOperation, context: GenerationContext): fc.Arbitrary<string> | undefined {
  const { world } = context;
  switch (name) {
    case 'walletId':
      return fc.constantFrom(...world.wallets.map((wallet) => wallet.id));
    case 'walletIds':
      return fc
        .subarray(
          world.wallets.map((wallet) => wallet.id),
          { minLength: 1, maxLength: 3 },
        )
        .map((ids) => ids.join(','));
    case 'accountName':
    case 'name':
      return fc.constantFrom(...world.wallets.map((wallet) => wallet.accountName), 'revenue:fees', 'suspense');
    case 'tenantId':
      return fc.constant(world.tenantId);
    case 'currencyCode':
      return fc.constantFrom('KES', ...world.currencies);
    case 'from':
      return operation.template.endsWith('/analytics')
        ? fc.constantFrom(new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10))
        : isoNear(fc.integer({ min: -86_400 * 2, max: -60 }));
    case 'to':
      return operation.template.endsWith('/analytics')
        ? fc.constantFrom(new Date(Date.now() + 86_400_000).toISOString().slice(0, 10))
        : isoNear(fc.integer({ min: 60, max: 86_400 }));
    case 'limit':
      return fc.integer({ min: 1, max: 200 }).map(String);
    case 'amount':
      return validAmount.map((value) => (value instanceof JsonToken ? value.text : String(value)));
    default:
      return undefined;
  }
}

function queryValueArb(name: string, schema: JsonSchema, operation: FuzzOperation, context: GenerationContext): fc.Arbitrary<string> {
  const fromSchema = schemaArb(schema, [name], context, operation).map((value) =>
    typeof value === 'string' ? value : value instanceof JsonToken ? value.text : jsonText(value),
  );
  const hint = queryHint(name, operation, context);
  return hint ? fc.oneof({ weight: 4, arbitrary: hint }, { weight: 1, arbitrary: fromSchema }) : fromSchema;
}

function queryArb(operation: FuzzOperation, context: GenerationContext): fc.Arbitrary<Array<[string, string]>> {
  const issued = context.world.cursors[operation.template] ?? [];
  const parts = operation.queryParams.map(({ name, schema }) => {
    if (name === 'cursor')
      return issued.length > 0
        ? fc.option(
            fc.constantFrom(...issued).map((cursor) => [name, cursor] as [string, string]),
            { nil: undefined, freq: 2 },
          )
        : fc.constant(undefined);
    const required = operation.template === '/v1/fees/quote';
    const value = queryValueArb(name, schema, operation, context).map((text) => [name, encodeURIComponent(text)] as [string, string]);
    return required ? value : fc.option(value, { nil: undefined, freq: 2 });
  });
  return fc.tuple(...parts).map((pairs) => pairs.filter((pair): pair is [string, string] => pair !== undefined));
}

// ---- path parameters ----------------------------------------------------------------------------

const KIND_BY_SEGMENT: Record<string, ResourceKind> = {
  tenants: 'tenant',
  organizations: 'tenant',
  journal: 'journalEntry',
  transactions: 'journalEntry',
  accounts: 'account',
  wallets: 'wallet',
  'api-keys': 'apiKey',
  'momo-providers': 'momoProvider',
  team: 'member',
  'fee-schedules': 'feeSchedule',
  deposits: 'deposit',
  transfers: 'transfer',
  cases: 'payoutCase',
  payouts: 'payoutCase',
  runs: 'reconciliationRun',
  'float-deposits': 'floatDeposit',
  withdrawals: 'withdrawal',
  'dead-letters': 'deadLetter',
  'webhook-endpoints': 'webhookEndpoint',
  events: 'event',
  rules: 'feeRule',
  matches: 'statementMatch',
};

/** The kind of resource a path parameter names, from the segment before it. */
export function kindOfPathParam(template: string, param: string): ResourceKind {
  const segments = template.split('/');
  const position = segments.indexOf(`{${param}}`);
  const kind = KIND_BY_SEGMENT[segments[position - 1] ?? ''];
  if (!kind) throw new Error(`no resource kind for {${param}} in ${template}`);
  return kind;
}

/** Routes that change or end what they name: never pointed at what the harness lives on. */
export function isDestructive(operation: FuzzOperation): boolean {
  return (
    operation.method === 'PATCH' ||
    operation.method === 'DELETE' ||
    /\/(rotate|revoke|rotate-secret|freeze|unfreeze)$/.test(operation.template)
  );
}

function basePathIds(operation: FuzzOperation, param: string, world: FuzzWorld): string[] {
  const kind = kindOfPathParam(operation.template, param);
  // The system surface names any tenant's resources; a tenant's only its own.
  const pool = operation.route.surface === 'system' ? [...world.ids.own[kind], ...world.ids.otherTenant[kind]] : world.ids.own[kind];
  // Only what the route changes is kept from the harness's own resources, not the tenant above it.
  const changed = operation.pathParams[operation.pathParams.length - 1] === param;
  return isDestructive(operation) && changed ? pool.filter((id) => !world.protectedIds.has(id)) : pool;
}

function pathParamsArb(operation: FuzzOperation, context: GenerationContext): fc.Arbitrary<Record<string, string>> {
  const entries = operation.pathParams.map((param) => {
    const pool = basePathIds(operation, param, context.world);
    const made = patternArb('^[0-9A-Z]{26}$').map((tail) => `${idPrefixOf(kindOfPathParam(operation.template, param))}_${tail}`);
    return (pool.length > 0 ? fc.constantFrom(...pool) : made).map((id) => [param, id] as [string, string]);
  });
  return fc.tuple(fc.tuple(...entries), fc.nat({ max: 7 })).map(([pairs, coherent]) => {
    const params = Object.fromEntries(pairs);
    // A key or schedule under the tenant it belongs to, mostly: else every such call is a 404.
    const [parent, child] = operation.pathParams;
    const childId = child === undefined ? undefined : params[child];
    const owner = childId !== undefined && Object.hasOwn(context.world.tenantOf, childId) ? context.world.tenantOf[childId] : undefined;
    if (parent !== undefined && owner !== undefined && coherent > 0 && kindOfPathParam(operation.template, parent) === 'tenant')
      params[parent] = owner;
    return Object.fromEntries(Object.entries(params).map(([name, id]) => [name, encodeURIComponent(id)]));
  });
}

// ---- the base request ----------------------------------------------------------------------------

const WEBHOOK = '/v1/deposits/momo-webhook';

function credentialArb(operation: FuzzOperation): fc.Arbitrary<Credential> {
  if (operation.route.surface === 'system') return fc.constant({ kind: 'system' });
  if (operation.route.surface === 'public') return fc.constant({ kind: 'none' });
  return fc.oneof(
    { weight: 7, arbitrary: fc.constant<Credential>({ kind: 'secret' }) },
    { weight: 2, arbitrary: fc.constant<Credential>({ kind: 'hmac' }) },
    { weight: 1, arbitrary: fc.constant<Credential>({ kind: 'session' }) },
  );
}

/** Coherent money requests reach the handlers' deeper paths: the currency of the wallet named, an amount at its scale, a payee of the same currency. */
function harmonize(body: JsonValue | undefined, world: FuzzWorld, pick: number): void {
  if (!(body instanceof JsonObject)) return;
  const walletId = body.get('walletId') ?? body.get('fromWalletId');
  const wallet = world.wallets.find((each) => each.id === walletId);
  if (!wallet) return;
  if (body.has('currencyCode')) body.set('currencyCode', wallet.currencyCode);
  if (body.has('toWalletId')) {
    const payees = world.wallets.filter((each) => each.currencyCode === wallet.currencyCode && each.id !== wallet.id);
    if (payees.length > 0) body.set('toWalletId', (payees[pick % payees.length] as WalletRef).id);
  }
  const amount = body.get('amount');
  if (wallet.currencyCode === 'UGX' && typeof amount === 'string') body.set('amount', amount.split('.')[0] as string);
}

function baseDraftArb(operation: FuzzOperation, context: GenerationContext): fc.Arbitrary<Draft> {
  const needsBody = operation.bodySchema !== undefined;
  return fc
    .record({
      pathParams: pathParamsArb(operation, context),
      query: queryArb(operation, context),
      body: needsBody
        ? fc.option(valueArb(operation.bodySchema as JsonSchema, [], context, operation), { nil: undefined, freq: 40 })
        : fc.constant(undefined),
      credential: credentialArb(operation),
      adminListener: operation.route.surface === 'system' ? fc.boolean() : fc.constant(false),
      harmonized: fc.nat({ max: 9 }),
      idempotencyKey: fc.option(fc.constant(`fz-idem-${context.index}`), { nil: undefined, freq: 12 }),
    })
    .map(({ pathParams, query, body, credential, adminListener, harmonized, idempotencyKey }) => {
      if (harmonized < 8) harmonize(body, context.world, harmonized);
      const headers: Record<string, string> = {};
      if (operation.method !== 'GET' && idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
      return {
        operation,
        listener: adminListener ? 'admin' : 'public',
        method: operation.method,
        pathParams,
        query,
        body,
        contentType: body === undefined ? null : 'application/json',
        encoding: 'utf8',
        headers,
        credential,
        signWebhook: true,
        tags: [],
      } satisfies Draft;
    });
}

// ---------------------------------------------------------------------------------------------
// Mutations. Each is drawn as numbers (which slot, which variant) and a payload, then applied by
// plain code: the same draws give the same request.

interface Slot {
  path: Array<string | number>;
  field: string;
  /** A field the route's schema names (not an extra one a mutation added). */
  known: boolean;
  value: JsonValue;
}

function slotsOf(value: JsonValue | undefined, path: Array<string | number> = [], field = '', known = true): Slot[] {
  if (value === undefined) return [];
  const slots: Slot[] = path.length > 0 ? [{ path, field, known, value }] : [];
  if (value instanceof JsonObject)
    value.entries.forEach(([key, member], position) =>
      slots.push(...slotsOf(member, [...path, position], key, known && !key.startsWith('fz_extra'))),
    );
  else if (Array.isArray(value)) value.forEach((member, position) => slots.push(...slotsOf(member, [...path, position], field, known)));
  return slots;
}

function replaceAt(root: JsonValue, path: Array<string | number>, replace: (old: JsonValue) => JsonValue | undefined): JsonValue {
  if (path.length === 0) return replace(root) ?? null;
  const [head, ...rest] = path as [number, ...Array<string | number>];
  if (root instanceof JsonObject) {
    const entry = root.entries[head];
    if (!entry) return root;
    const next = rest.length === 0 ? replace(entry[1]) : replaceAt(entry[1], rest, replace);
    if (next === undefined) root.entries.splice(head, 1);
    else root.entries[head] = [entry[0], next];
  } else if (Array.isArray(root)) {
    const member = root[head];
    if (member === undefined) return root;
    const next = rest.length === 0 ? replace(member) : replaceAt(member, rest, replace);
    if (next === undefined) root.splice(head, 1);
    else root[head] = next;
  }
  return root;
}

function insertAt(text: string, position: number, insert: string): string {
  const at = text.length === 0 ? 0 : position % (text.length + 1);
  return text.slice(0, at) + insert + text.slice(at);
}

function pickOf<Item>(items: readonly Item[], pick: number): Item {
  return items[pick % items.length] as Item;
}

const CONTROL_CHARACTERS = [
  '\u0001',
  '\u0007',
  '\b',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u200b',
  '\u202e',
];
const LONE_SURROGATES = ['\ud800', '\udfff', '\udc00\ud800', 'a\ud83d'];

/** Number tokens that stress a decimal reader: huge, tiny, exponents, signs, zeros past the scale. */
const NUMBER_TEXTS = [
  '1e3',
  '1E+400',
  '1e-400',
  '-0',
  '0',
  '0.00',
  '-1',
  '-100.50',
  '10.000',
  '100.0',
  '1.5e2',
  '0.001',
  `0.${'0'.repeat(30)}1`,
  '1000000',
  '1000000.01',
  '1000000.00',
  '9'.repeat(19),
  `${'9'.repeat(39)}.99`,
  `1${'0'.repeat(1000)}`,
  '9'.repeat(131_071),
  `1${'0'.repeat(131_072)}`,
  `${'9'.repeat(131_073)}.5`,
  `1.${'0'.repeat(20_000)}1`,
  '1'.padEnd(400, '0'),
];
const STRING_NUMBER_TEXTS = ['NaN', 'Infinity', '-Infinity', ' 10', '10 ', '1,000', '0x10', '+5', '.5', '5.', '١٠', '１０'];

const WRONG_TYPES: JsonValue[] = [
  new JsonToken('1'),
  new JsonToken('-1.5'),
  true,
  false,
  null,
  [],
  [new JsonToken('1'), 'a'],
  new JsonObject([]),
  new JsonObject([['a', new JsonToken('1')]]),
  '',
  'string',
];

const PROTO_PAYLOADS: Array<[string, JsonValue]> = [
  [
    '__proto__',
    new JsonObject([
      ['isAdmin', true],
      ['status', 'completed'],
    ]),
  ],
  [
    '__proto__',
    new JsonObject([
      ['balance', '1000000'],
      ['tenantId', 'tn_other'],
    ]),
  ],
  ['constructor', new JsonObject([['prototype', new JsonObject([['polluted', true]])]])],
  ['__proto__', null],
  ['prototype', new JsonToken('1')],
];

function deepText(depth: number, object: boolean): string {
  return object ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

const BROKEN_BODIES = [
  '{',
  '{"a":1,}',
  "{'a':1}",
  'null',
  '[]',
  '"text"',
  '1',
  'true',
  'NaN',
  '{"a":1}{"b":2}',
  '{"a":1} trailing',
  '\ufeff{}',
  '{"a":1/*c*/}',
  '{"a":"\\x41"}',
  '{"a":"\\ud800"}',
  '{"a":01}',
  '{"a":.5}',
  '',
  ' ',
  '\u0000',
];

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'text/csv',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=UTF-16LE',
  'application/json; charset=latin1',
  'application/json; charset=iso-8859-1',
  'application/json; charset=us-ascii',
  'application/json; charset="utf-16"',
  'application/json; charset=utf-8; charset=utf-16',
  'application/json; charset=UTF-8',
  'application/json;charset=utf-8',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/json; boundary=x',
  'application/jsonp',
  '*/*',
  '',
];

// Paths and queries stay well inside node's 16 KiB for the request line and headers (a 10,000
// character nonce included): beyond it node answers 431 itself, before any of the API's code.
const WRONG_SHAPE_IDS = [
  'x',
  '0',
  '-1',
  'null',
  'undefined',
  '%00',
  'x%00y',
  '%2e%2e',
  '..%2f..',
  '%ZZ',
  '%',
  '%C3%A9',
  '%F0%9F%92%B8',
  '%ED%A0%80',
  '%C0%80',
  '%EF%BF%BF',
  '+',
  '%20',
  '%27%20OR%201%3D1--',
  '%7B%7D',
  'a'.repeat(1500),
];

const FORGED_CURSOR_VALUES: JsonValue[] = [
  '99999999999999999999999999',
  new JsonToken('99999999999999999999999999'),
  new JsonToken('-1'),
  new JsonToken('1e400'),
  '',
  '\u0000',
  'x',
  null,
  true,
  [],
  new JsonObject([]),
  '2026-13-45T99:99:99.999Z',
  `'; DROP TABLE x; --`,
  'a'.repeat(300),
];

const RANDOM_CURSORS = [
  'a',
  'x'.repeat(512),
  '!!!!',
  Buffer.from('null').toString('base64url'),
  Buffer.from('[]').toString('base64url'),
  Buffer.from('{}').toString('base64url'),
  Buffer.from('{"seq":"99999999999999999999999999"}').toString('base64url'),
  Buffer.from('{"seq":-1}').toString('base64url'),
  Buffer.from('{"createdAt":"garbage","id":"x"}').toString('base64url'),
  Buffer.from('{"createdAt":"2026-01-01T00:00:00.000Z","id":"tx_0"}').toString('base64url'),
  Buffer.from('{"id":"\\u0000"}').toString('base64url'),
  Buffer.from('not json at all').toString('base64url'),
  Buffer.from('{"seq":"1"}').toString('base64'),
];

const QUERY_ODD_VALUES = [
  '%',
  '%ZZ',
  '%C3',
  '%ED%A0%80',
  '%C0%80',
  '%FF',
  'a+b',
  '%2B',
  '%26x%3D1',
  'x'.repeat(1000),
  '',
  '%00',
  'x%00y',
  '%0A',
  '%E2%80%AE',
];
const QUERY_WRONG_VALUES = [
  '0',
  '-1',
  '201',
  '1e3',
  '1.5',
  'abc',
  '99999999999999999999999',
  'NaN',
  'Infinity',
  '0x10',
  '%205',
  'true',
  '2026-13-45',
  '2026-02-30T00:00:00.000Z',
  '%2B275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '0001-01-01T00:00:00Z',
  '1969-12-31',
  'live%00',
  'LIVE',
];

const NONCES = [
  'a',
  'deadbeef',
  '',
  'n'.repeat(10_000),
  'has space',
  '0123456789abcdef0123456',
  'ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ',
  'a'.repeat(129),
  'aaaaaaaaaaaaaaaaaaaaa',
  '../../../../etc/passwd....',
];

interface MutationDraw {
  kind: MutationKind;
  pick: number;
  variant: number;
  text: string;
}

/** Fields that hold an amount of money, by name: their own mutation aims the number texts at them. */
const AMOUNT_FIELDS: ReadonlySet<string> = new Set([
  'amount',
  'maxTransactionAmount',
  'minAmount',
  'maxAmount',
  'flatFee',
  'minFee',
  'maxFee',
  'percentageFee',
]);

function namesAmount(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  return [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(
    (branch) =>
      Object.entries(branch.properties ?? {}).some(([name, property]) => AMOUNT_FIELDS.has(name) || namesAmount(property)) ||
      namesAmount(branch.items),
  );
}

function applicableKinds(operation: FuzzOperation): Array<{ kind: MutationKind; weight: number }> {
  const kinds: Array<{ kind: MutationKind; weight: number }> = [];
  const add = (weight: number, ...names: MutationKind[]) => names.forEach((kind) => kinds.push({ kind, weight }));
  if (namesAmount(operation.bodySchema)) add(10, 'amount');
  if (operation.bodySchema) {
    add(4, 'nul', 'number-token', 'wrong-type', 'missing-field', 'foreign-id', 'made-up-id');
    add(
      2,
      'control-character',
      'lone-surrogate',
      'long-string',
      'number-as-string',
      'extra-field',
      'proto-key',
      'duplicate-key',
      'broken-json',
      'invalid-utf8',
      'content-type',
    );
    add(1, 'deep-nesting');
  } else {
    add(1, 'unexpected-body');
  }
  if (operation.pathParams.length > 0) add(6, 'path-id');
  add(1, 'path-shape');
  if (operation.queryParams.length > 0) {
    add(3, 'query-nul', 'query-wrong');
    add(2, 'query-duplicate', 'query-odd', 'query-extra');
  }
  if (operation.queryParams.some((parameter) => parameter.name === 'cursor')) add(8, 'forged-cursor');
  add(2, 'credential');
  if (operation.method !== 'GET') add(1, 'idempotency-key');
  if (operation.route.surface === 'tenant') add(1, 'actor-headers');
  if (operation.template === WEBHOOK) add(2, 'webhook-signature');
  return kinds;
}

function mutationArb(operation: FuzzOperation): fc.Arbitrary<MutationDraw> {
  const kinds = applicableKinds(operation);
  return fc.record({
    kind: fc.oneof(...kinds.map(({ kind, weight }) => ({ weight, arbitrary: fc.constant(kind) }))),
    pick: fc.nat(),
    variant: fc.nat(),
    text: fc.oneof(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12, unit: 'binary' })),
  });
}

function mutateStringSlot(draft: Draft, draw: MutationDraw, transform: (text: string) => string): void {
  const slots = slotsOf(draft.body).filter((slot) => typeof slot.value === 'string');
  if (slots.length === 0) {
    const any = slotsOf(draft.body);
    if (any.length === 0) return;
    draft.body = replaceAt(draft.body as JsonValue, pickOf(any, draw.pick).path, () => transform('x'));
    return;
  }
  const slot = pickOf(slots, draw.pick);
  draft.body = replaceAt(draft.body as JsonValue, slot.path, (old) => transform(old as string));
}

function replaceSlot(
  draft: Draft,
  pick: number,
  value: (slot: Slot) => JsonValue | undefined,
  filter: (slot: Slot) => boolean = () => true,
): Slot | undefined {
  const slots = slotsOf(draft.body).filter(filter);
  if (slots.length === 0) return undefined;
  const slot = pickOf(slots, pick);
  draft.body = replaceAt(draft.body as JsonValue, slot.path, () => value(slot));
  return slot;
}

const ID_FIELDS: Record<string, ResourceKind> = {
  walletId: 'wallet',
  fromWalletId: 'wallet',
  toWalletId: 'wallet',
  requestedBy: 'member',
  depositedBy: 'member',
  actorId: 'member',
};

function foreignIds(world: FuzzWorld, kind: ResourceKind): string[] {
  return [...world.ids.otherTenant[kind], ...(ENVIRONMENT_BOUND.has(kind) ? world.ids.otherEnvironment[kind] : [])];
}

function madeUpId(kind: ResourceKind, draw: MutationDraw): string {
  const tail = createHash('sha256').update(`${draw.pick}:${draw.text}`).digest('hex').slice(0, 26).toUpperCase();
  return draw.variant % 3 === 0
    ? decodeURIComponent(
        pickOf(
          WRONG_SHAPE_IDS.filter((id) => !id.includes('%')),
          draw.pick,
        ),
      )
    : `${idPrefixOf(kind)}_${tail}`;
}

function setHeader(draft: Draft, name: string, value: string | undefined): void {
  if (value === undefined) delete draft.headers[name];
  else draft.headers[name] = value;
}

/** Field mutations need a JSON body to work on: a route without one gets an empty object. */
function ensureBody(draft: Draft): void {
  if (draft.body !== undefined) return;
  draft.body = new JsonObject([]);
  draft.contentType = 'application/json';
}

function insertIntoString(characters: readonly string[]) {
  return (draft: Draft, draw: MutationDraw) =>
    mutateStringSlot(draft, draw, (text) => insertAt(text, draw.variant, pickOf(characters, draw.variant)));
}

function amountMutation(draft: Draft, draw: MutationDraw): void {
  const text = pickOf([...NUMBER_TEXTS, ...STRING_NUMBER_TEXTS], draw.variant);
  const asToken = draw.pick % 2 === 0 && !STRING_NUMBER_TEXTS.includes(text);
  const target = replaceSlot(
    draft,
    draw.pick >> 1,
    () => (asToken ? new JsonToken(text) : text),
    (slot) => AMOUNT_FIELDS.has(slot.field) && !(slot.value instanceof JsonObject),
  );
  if (!target) draft.tags.pop();
}

function objectsOf(draft: Draft): JsonObject[] {
  return [draft.body as JsonValue, ...slotsOf(draft.body).map((slot) => slot.value)].filter(
    (value): value is JsonObject => value instanceof JsonObject,
  );
}

function addMember(draft: Draft, draw: MutationDraw, member: [string, JsonValue]): void {
  const objects = objectsOf(draft);
  if (objects.length > 0) pickOf(objects, draw.pick).entries.push([member[0], cloneJson(member[1])]);
}

function duplicateKey(draft: Draft, draw: MutationDraw): void {
  const members = slotsOf(draft.body).filter((slot) => typeof slot.path[slot.path.length - 1] === 'number' && slot.field !== '');
  if (members.length === 0) return;
  const slot = pickOf(members, draw.pick);
  const parentPath = slot.path.slice(0, -1).join('.');
  const parent = parentPath === '' ? draft.body : slotsOf(draft.body).find((each) => each.path.join('.') === parentPath)?.value;
  if (parent instanceof JsonObject)
    parent.entries.push([slot.field, cloneJson(pickOf([...WRONG_TYPES, 'other', '\u0000', new JsonToken('1e400')], draw.variant))]);
}

function idMutation(foreign: boolean) {
  return (draft: Draft, draw: MutationDraw, world: FuzzWorld) => {
    replaceSlot(
      draft,
      draw.pick,
      (slot) => {
        const kind = ID_FIELDS[slot.field] as ResourceKind;
        const others = foreignIds(world, kind);
        return foreign && others.length > 0 ? pickOf(others, draw.variant) : madeUpId(kind, draw);
      },
      (slot) => Object.hasOwn(ID_FIELDS, slot.field) && typeof slot.value === 'string',
    );
  };
}

function brokenJson(draft: Draft, draw: MutationDraw): void {
  const text = draft.body === undefined ? '{}' : jsonText(draft.body);
  draft.rawBody = Buffer.from(
    draw.variant % 3 === 0 ? text.slice(0, draw.pick % Math.max(text.length, 1)) : pickOf(BROKEN_BODIES, draw.variant),
    'utf8',
  );
  draft.contentType = 'application/json';
}

/** Bytes that are not UTF-8 (a lone continuation, an overlong NUL, an encoded surrogate) inside a string. */
function invalidUtf8(draft: Draft, draw: MutationDraw): void {
  const marker = 'FUZZMARKER';
  mutateStringSlot(draft, draw, (text) => insertAt(text, draw.variant, marker));
  const [before, after] = jsonText(draft.body as JsonValue).split(marker);
  const bytes = pickOf([[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xfe, 0xff]], draw.pick);
  draft.rawBody = Buffer.concat([Buffer.from(before ?? '', 'utf8'), Buffer.from(bytes), Buffer.from(after ?? '', 'utf8')]);
}

/** Another media type or charset; a body labelled UTF-16 or Latin-1 is encoded so, with a character that tells. */
function contentTypeMutation(draft: Draft, draw: MutationDraw): void {
  const contentType = pickOf(CONTENT_TYPES, draw.variant);
  draft.contentType = contentType === '' ? null : contentType;
  if (/utf-16/i.test(contentType)) draft.encoding = 'utf16le';
  else if (/latin1|iso-8859-1/i.test(contentType)) draft.encoding = 'latin1';
  if (draft.body instanceof JsonObject && draft.encoding === 'latin1') mutateStringSlot(draft, draw, (text) => `${text}é`);
}

function queryMutation(value: (draft: Draft, draw: MutationDraw, world: FuzzWorld, current: string | undefined) => string) {
  return (draft: Draft, draw: MutationDraw, world: FuzzWorld) => {
    const name = pickOf(
      draft.operation.queryParams.map((parameter) => parameter.name),
      draw.pick,
    );
    const existing = draft.query.findIndex(([key]) => key === name);
    const next = value(draft, draw, world, existing >= 0 ? (draft.query[existing] as [string, string])[1] : undefined);
    if (existing >= 0) draft.query[existing] = [name, next];
    else draft.query.push([name, next]);
  };
}

function duplicateQuery(draft: Draft, draw: MutationDraw): void {
  const name = pickOf(
    draft.operation.queryParams.map((parameter) => parameter.name),
    draw.pick,
  );
  const current = draft.query.find(([key]) => key === name)?.[1] ?? 'x';
  draft.query.push([name, current], [name, pickOf(['x', '1', 'live', 'KES', ''], draw.variant)]);
}

function forgedCursor(draft: Draft, draw: MutationDraw, world: FuzzWorld): void {
  const forged = encodeURIComponent(forgeCursor(world.cursors[draft.operation.template] ?? [], Object.values(world.cursors).flat(), draw));
  const at = draft.query.findIndex(([key]) => key === 'cursor');
  if (at >= 0) draft.query[at] = ['cursor', forged];
  else draft.query.push(['cursor', forged]);
}

/** A cursor the list never issued: one of its own with a field changed or dropped, one character off, another list's, or made up. */
function forgeCursor(issued: string[], everyIssued: string[], draw: MutationDraw): string {
  const own = issued.length > 0 ? pickOf(issued, draw.pick) : undefined;
  const variant = draw.variant % 5;
  if (own && variant <= 1) {
    try {
      const decoded = JSON.parse(Buffer.from(own, 'base64url').toString('utf8')) as Record<string, unknown>;
      const fields = Object.keys(decoded);
      const changed = new JsonObject(
        Object.entries(decoded).map(([key, value]) => [
          key,
          typeof value === 'number' ? new JsonToken(String(value)) : (value as JsonValue),
        ]),
      );
      if (variant === 0 && fields.length > 0)
        changed.set(pickOf(fields, draw.pick >> 3), cloneJson(pickOf(FORGED_CURSOR_VALUES, draw.variant >> 3)));
      else if (fields.length > 0) changed.entries.splice(draw.pick % fields.length, 1);
      return Buffer.from(jsonText(changed), 'utf8').toString('base64url');
    } catch {
      return `${own}x`;
    }
  }
  if (own && variant === 2) return own.slice(0, -1) + (own.endsWith('A') ? 'B' : 'A');
  if (variant === 3 && everyIssued.length > 0) return pickOf(everyIssued, draw.pick);
  return pickOf(RANDOM_CURSORS, draw.pick);
}

function pathShape(draft: Draft, draw: MutationDraw): void {
  const path = buildPath(draft);
  draft.pathOverride = pickOf(
    [
      `${path}/`,
      `/${path}`,
      path.replace('/v1/', '/v1//'),
      path.replace('/v1/', '/v1/./'),
      path.toUpperCase(),
      `${path}%2F`,
      `${path}/..`,
      path.replace('/v1/', '/V1/'),
      `${path};x=1`,
      `${path}/extra`,
    ],
    draw.variant,
  );
}

/** Another tenant's or environment's id, a made-up one of the right shape, or one of the wrong shape. */
function pathId(draft: Draft, draw: MutationDraw, world: FuzzWorld): void {
  const param = pickOf(draft.operation.pathParams, draw.pick);
  const kind = kindOfPathParam(draft.operation.template, param);
  const foreign = foreignIds(world, kind);
  const variant = draw.variant % 4;
  let value: string;
  if (variant === 0 && foreign.length > 0) value = encodeURIComponent(pickOf(foreign, draw.pick >> 2));
  else if (variant === 1) value = encodeURIComponent(madeUpId(kind, { ...draw, variant: 1 }));
  else value = pickOf(WRONG_SHAPE_IDS, draw.variant >> 2);
  draft.pathParams = { ...draft.pathParams, [param]: value };
}

function credentialMutation(draft: Draft, draw: MutationDraw, world: FuzzWorld): void {
  const { credentials } = world;
  const options: Credential[] = [
    { kind: 'none' },
    { kind: 'other', label: 'garbage API key', headers: { 'x-api-key': 'sk_live_not_a_key' } },
    { kind: 'other', label: 'revoked key', headers: { 'x-api-key': credentials.revokedSecretKey } },
    { kind: 'other', label: 'wrong system key', headers: { 'x-system-key': 'x'.repeat(40) } },
    { kind: 'other', label: 'garbage bearer', headers: { authorization: 'Bearer sess_garbage' } },
    { kind: 'other', label: 'basic auth', headers: { authorization: 'Basic Zm9vOmJhcg==' } },
    { kind: 'other', label: 'key and system key', headers: { 'x-api-key': credentials.secretKey, 'x-system-key': credentials.systemKey } },
    draft.operation.route.surface === 'system' ? { kind: 'secret' } : { kind: 'system' },
    { kind: 'hmac', nonce: pickOf(NONCES, draw.pick) },
    { kind: 'hmac', timestamp: pickOf(['2020-01-01T00:00:00.000Z', 'yesterday', '', '1e400', String(Date.now())], draw.pick) },
    { kind: 'hmac', contentSha256: 'AAAA' },
    { kind: 'hmac', badSignature: true },
    {
      kind: 'hmac',
      omit: pickOf(['x-service-nonce', 'x-service-timestamp', 'x-service-content-sha256', 'x-service-signature'], draw.pick),
    },
  ];
  draft.credential = pickOf(options, draw.variant);
}

function actorHeaders(draft: Draft, draw: MutationDraw, world: FuzzWorld): void {
  setHeader(draft, 'x-service-actor-type', pickOf(['member', 'team_member', 'x'.repeat(300), ''], draw.variant));
  setHeader(
    draft,
    'x-service-actor-id',
    pickOf([world.members.approver, world.members.requester, ...foreignIds(world, 'member'), 'usr_UNKNOWN', ''], draw.pick),
  );
}

function badWebhookSignature(draft: Draft, draw: MutationDraw): void {
  draft.signWebhook = false;
  const wrong = momoWebhookSignature('wrong secret', {
    transactionId: 'a',
    walletId: 'b',
    amountText: '1',
    currencyCode: 'KES',
    phoneNumber: '1',
    timestamp: 't',
  });
  if (draft.body instanceof JsonObject) draft.body.set('signature', pickOf(['x', 'a'.repeat(256), '', wrong], draw.variant));
}

function unexpectedBody(draft: Draft, draw: MutationDraw): void {
  draft.body = pickOf<JsonValue>(
    [new JsonObject([['a', new JsonToken('1')]]), new JsonObject([['x', '\u0000']]), 'a'.repeat(100_000)],
    draw.variant,
  );
  draft.contentType = pickOf(['application/json', 'text/plain', 'application/json; charset=utf-16'], draw.pick);
  if (draft.contentType.includes('utf-16')) draft.encoding = 'utf16le';
}

type Mutate = (draft: Draft, draw: MutationDraw, world: FuzzWorld) => void;

/** Every mutation, by what it works on: a field of the JSON body, the query, the path or the headers. */
const MUTATIONS = {
  nul: { on: 'field', apply: insertIntoString(['\u0000', 'x\u0000y', '\u0000\u0000']) },
  'control-character': { on: 'field', apply: insertIntoString(CONTROL_CHARACTERS) },
  'lone-surrogate': { on: 'field', apply: insertIntoString(LONE_SURROGATES) },
  'long-string': {
    on: 'field',
    apply: (draft, draw) =>
      replaceSlot(draft, draw.pick, () =>
        pickOf(
          ['a'.repeat(100_000), 'é'.repeat(50_000), `${'x'.repeat(99_999)}\u0000`, 'a'.repeat(1_000), '💸'.repeat(20_000)],
          draw.variant,
        ),
      ),
  },
  'number-token': {
    on: 'field',
    apply: (draft, draw) =>
      replaceSlot(
        draft,
        draw.pick,
        () => new JsonToken(pickOf(NUMBER_TEXTS, draw.variant)),
        (slot) => !(slot.value instanceof JsonObject),
      ),
  },
  'number-as-string': {
    on: 'field',
    apply: (draft, draw) => replaceSlot(draft, draw.pick, () => pickOf([...NUMBER_TEXTS, ...STRING_NUMBER_TEXTS], draw.variant)),
  },
  amount: { on: 'field', apply: amountMutation },
  'wrong-type': { on: 'field', apply: (draft, draw) => replaceSlot(draft, draw.pick, () => cloneJson(pickOf(WRONG_TYPES, draw.variant))) },
  'missing-field': {
    on: 'field',
    apply: (draft, draw) =>
      replaceSlot(
        draft,
        draw.pick,
        () => undefined,
        (slot) => typeof slot.path[slot.path.length - 1] === 'number',
      ),
  },
  'extra-field': {
    on: 'field',
    apply: (draft, draw) =>
      addMember(draft, draw, [
        `fz_extra${draw.text.replace(/[^\w]/g, '')}`,
        pickOf([...WRONG_TYPES, 'a'.repeat(10_000), '\u0000'], draw.variant),
      ]),
  },
  'proto-key': { on: 'field', apply: (draft, draw) => addMember(draft, draw, pickOf(PROTO_PAYLOADS, draw.variant)) },
  'duplicate-key': { on: 'field', apply: duplicateKey },
  'deep-nesting': {
    on: 'field',
    apply: (draft, draw) =>
      replaceSlot(draft, draw.pick, () => new JsonToken(deepText(pickOf([10_000, 2_000, 100_000], draw.variant), draw.pick % 2 === 0))),
  },
  'foreign-id': { on: 'field', apply: idMutation(true) },
  'made-up-id': { on: 'field', apply: idMutation(false) },
  'broken-json': { on: 'body', apply: brokenJson },
  'invalid-utf8': { on: 'field', apply: invalidUtf8 },
  'content-type': { on: 'body', apply: contentTypeMutation },
  'unexpected-body': { on: 'headers', apply: unexpectedBody },
  'path-id': { on: 'path', apply: pathId },
  'path-shape': { on: 'path', apply: pathShape },
  'query-nul': {
    on: 'query',
    apply: queryMutation((_draft, draw, world, current) =>
      current !== undefined ? `${current}%00` : pickOf(['%00', 'x%00y', `${world.wallets[0]?.id ?? 'wl_x'}%00`], draw.variant),
    ),
  },
  'query-wrong': { on: 'query', apply: queryMutation((_draft, draw) => pickOf(QUERY_WRONG_VALUES, draw.variant)) },
  'query-odd': { on: 'query', apply: queryMutation((_draft, draw) => pickOf(QUERY_ODD_VALUES, draw.variant)) },
  'query-duplicate': { on: 'query', apply: duplicateQuery },
  'query-extra': {
    on: 'query',
    apply: (draft, draw) =>
      draft.query.push(
        pickOf<[string, string]>(
          [
            ['__proto__', 'x'],
            ['constructor%5Bprototype%5D', 'x'],
            ['a%5Bb%5D', 'c'],
            [`fz${encodeURIComponent(draw.text)}`, 'x'],
            ['', 'x'],
            ['tenantId', 'tn_other'],
            ['environment', 'test'],
          ],
          draw.variant,
        ),
      ),
  },
  'forged-cursor': { on: 'query', apply: forgedCursor },
  credential: { on: 'headers', apply: credentialMutation },
  'idempotency-key': {
    on: 'headers',
    apply: (draft, draw, world) =>
      setHeader(
        draft,
        'idempotency-key',
        pickOf(
          [
            undefined,
            '',
            ' ',
            'k'.repeat(300),
            world.usedIdempotencyKeys.length > 0 ? pickOf(world.usedIdempotencyKeys, draw.pick) : 'fz-reused',
            'ÿÿÿ',
            'a\tb',
          ],
          draw.variant,
        ),
      ),
  },
  'actor-headers': { on: 'headers', apply: actorHeaders },
  'webhook-signature': { on: 'headers', apply: badWebhookSignature },
} satisfies Record<string, { on: 'field' | 'body' | 'query' | 'path' | 'headers'; apply: Mutate }>;

export type MutationKind = keyof typeof MUTATIONS;

function applyMutation(draft: Draft, draw: MutationDraw, world: FuzzWorld): void {
  const { on, apply } = MUTATIONS[draw.kind];
  // A raw body written already leaves nothing for a body mutation to change.
  if ((on === 'field' || on === 'body') && draft.rawBody !== undefined) return;
  if (on === 'field') ensureBody(draft);
  draft.tags.push(draw.kind);
  apply(draft, draw, world);
}

/** One case: a route, its valid-ish request and zero to three mutations of it. */
export function caseArbitrary(operations: readonly FuzzOperation[], world: FuzzWorld, index: number): fc.Arbitrary<Draft> {
  const context: GenerationContext = { world, index };
  return fc.constantFrom(...operations).chain((operation) =>
    fc
      .tuple(baseDraftArb(operation, context), fc.array(mutationArb(operation), { minLength: 1, maxLength: 3 }), fc.nat({ max: 19 }))
      .map(([base, draws, unmutated]) => {
        const draft: Draft = {
          ...base,
          pathParams: { ...base.pathParams },
          query: base.query.map(([key, value]) => [key, value]),
          headers: { ...base.headers },
          body: base.body === undefined ? undefined : cloneJson(base.body),
          tags: [],
        };
        // About one case in seven goes out as generated: the valid-ish request must hold too.
        if (unmutated >= 3) for (const draw of draws) applyMutation(draft, draw, world);
        return draft;
      }),
  );
}

// ---------------------------------------------------------------------------------------------
// Finishing a draft into bytes and headers at the moment it is sent.

function buildPath(draft: Draft): string {
  return draft.operation.template.replace(/\{(\w+)\}/g, (_match, name: string) => draft.pathParams[name] ?? '');
}

function signedWebhook(body: JsonObject, secret: string): void {
  const text = (key: string): string => {
    const value = body.get(key);
    return typeof value === 'string' ? value : value instanceof JsonToken ? value.text : jsonText(value ?? null);
  };
  body.set(
    'signature',
    momoWebhookSignature(secret, {
      transactionId: text('transactionId'),
      walletId: text('walletId'),
      amountText: text('amount'),
      currencyCode: text('currencyCode'),
      phoneNumber: text('phoneNumber'),
      timestamp: text('timestamp'),
    }),
  );
}

function encodeBody(text: string, encoding: Draft['encoding']): Buffer {
  return encoding === 'utf16le' ? Buffer.from(text, 'utf16le') : Buffer.from(text, encoding);
}

function credentialHeaders(
  credential: Credential,
  world: FuzzWorld,
  request: { method: string; pathWithQuery: string; body: Buffer; headers: Record<string, string> },
  nowMs: number,
): Record<string, string> {
  const { credentials } = world;
  switch (credential.kind) {
    case 'secret':
      return { 'x-api-key': credentials.secretKey };
    case 'session':
      return { authorization: `Bearer ${credentials.sessionToken}` };
    case 'system':
      return { 'x-system-key': credentials.systemKey };
    case 'none':
      return {};
    case 'other':
      return { ...credential.headers };
    case 'hmac': {
      const signed = signRequest({
        keyId: credentials.hmac.keyId,
        signingSecret: credentials.hmac.signingSecret,
        timestamp: credential.timestamp ?? new Date(nowMs).toISOString(),
        nonce: credential.nonce ?? createHash('sha256').update(`${nowMs}:${Math.random()}`).digest('base64url').slice(0, 32),
        method: request.method,
        pathWithQuery: request.pathWithQuery,
        body: request.body,
        idempotencyKey: request.headers['idempotency-key'],
        actorType: request.headers['x-service-actor-type'],
        actorId: request.headers['x-service-actor-id'],
      });
      const headers = Object.fromEntries(Object.entries(signed).map(([name, value]) => [name.toLowerCase(), value]));
      if (credential.contentSha256 !== undefined) headers['x-service-content-sha256'] = credential.contentSha256;
      if (credential.badSignature) headers['x-service-signature'] = 'v1=:AAAA:';
      if (credential.omit) delete headers[credential.omit];
      return headers;
    }
  }
}

/** The request as it goes on the wire; webhook signatures, timestamps and HMAC headers are made now. */
export function finalize(draft: Draft, world: FuzzWorld, index: number, nowMs = Date.now()): FuzzRequest {
  const body = draft.body === undefined ? undefined : cloneJson(draft.body);
  if (draft.operation.template === WEBHOOK && draft.signWebhook && body instanceof JsonObject) signedWebhook(body, world.webhookSecret);
  const bytes = draft.rawBody ?? (body === undefined ? null : encodeBody(jsonText(body), draft.encoding));
  const path = draft.pathOverride ?? buildPath(draft);
  const query = draft.query.map(([key, value]) => `${key}=${value}`).join('&');
  const headers: Record<string, string> = { ...draft.headers, 'x-correlation-id': `fz-${index}` };
  if (bytes !== null && draft.contentType !== null) headers['content-type'] = draft.contentType;
  const pathWithQuery = query === '' ? path : `${path}?${query}`;
  Object.assign(
    headers,
    credentialHeaders(draft.credential, world, { method: draft.method, pathWithQuery, body: bytes ?? Buffer.alloc(0), headers }, nowMs),
  );
  return {
    index,
    operation: draft.operation,
    listener: draft.listener,
    method: draft.method,
    pathParams: draft.pathParams,
    path,
    query,
    headers,
    body: bytes,
    credential: draft.credential,
    tags: draft.tags,
  };
}

// ---------------------------------------------------------------------------------------------
// What the world learns from answers: new ids to aim later cases at, and cursors.

const CREATES: Record<string, ResourceKind> = {
  'POST /v1/tenants': 'tenant',
  'POST /v1/system/organizations': 'tenant',
  'POST /v1/developer/api-keys': 'apiKey',
  'POST /v1/tenants/{id}/api-keys': 'apiKey',
  'POST /v1/admin/momo-providers': 'momoProvider',
  'POST /v1/team': 'member',
  'POST /v1/wallets': 'wallet',
  'POST /v1/admin/fee-schedules': 'feeSchedule',
  'POST /v1/system/organizations/{tenantId}/fee-schedules': 'feeSchedule',
  'POST /v1/deposits/bank-slips': 'deposit',
  'POST /v1/deposits/momo-webhook': 'deposit',
  'POST /v1/transfers': 'transfer',
  'POST /v1/payouts': 'payoutCase',
  'POST /v1/admin/money/float-deposits': 'floatDeposit',
  'POST /v1/admin/money/withdrawals': 'withdrawal',
};

/** Wallets the hints pick from: the seeded ones and the first learned, so most sends come from money. */
const MAX_HINTED_WALLETS = 40;

/** Pools only grow: an id once seen stays a known one, or a route naming it would look like it names nothing. */
function remember(pool: string[], id: string): void {
  if (!pool.includes(id)) pool.push(id);
}

/** The tenant a system route names in its path (`/v1/tenants/{id}/api-keys`), if any. */
function tenantInPath(request: FuzzRequest): string | undefined {
  const [first] = request.operation.pathParams;
  if (first === undefined || kindOfPathParam(request.operation.template, first) !== 'tenant') return undefined;
  try {
    return decodeURIComponent(request.pathParams[first] ?? '');
  } catch {
    return undefined;
  }
}

/** Adds what a successful answer created to the world, as the world's owner sees it. */
export function learn(world: FuzzWorld, request: FuzzRequest, status: number, answer: unknown): void {
  const key = request.headers['idempotency-key'];
  if (key !== undefined && key !== '' && !world.usedIdempotencyKeys.includes(key)) world.usedIdempotencyKeys.push(key);
  if (world.usedIdempotencyKeys.length > 50) world.usedIdempotencyKeys.shift();
  if (status < 200 || status >= 300 || typeof answer !== 'object' || answer === null) return;
  const record = answer as Record<string, unknown>;
  if (typeof record.nextCursor === 'string' && record.nextCursor !== '') {
    const cursors = (world.cursors[request.operation.template] ??= []);
    // Never evicted: an issued cursor dropped from the pool would later look forged.
    if (!cursors.includes(record.nextCursor)) cursors.push(record.nextCursor);
    world.cursorPaths[record.nextCursor] = request.path;
  }
  const kind = CREATES[`${request.method} ${request.operation.template}`];
  if (!kind || typeof record.id !== 'string') return;
  const tenantId =
    typeof record.tenantId === 'string'
      ? record.tenantId
      : request.operation.route.surface === 'tenant'
        ? world.tenantId
        : tenantInPath(request);
  const owner: Owner =
    kind === 'tenant' || tenantId !== world.tenantId ? 'otherTenant' : record.environment === 'test' ? 'otherEnvironment' : 'own';
  remember(world.ids[owner][kind], record.id);
  if (tenantId !== undefined) world.tenantOf[record.id] = tenantId;
  for (const field of ['journalEntryId', 'holdJournalEntryId'] as const) {
    if (typeof record[field] === 'string') remember(world.ids[owner].journalEntry, record[field] as string);
  }
  if (
    kind === 'wallet' &&
    owner === 'own' &&
    typeof record.currencyCode === 'string' &&
    typeof record.ownerId === 'string' &&
    world.wallets.length < MAX_HINTED_WALLETS
  ) {
    world.wallets.push({ id: record.id, currencyCode: record.currencyCode, accountName: `wallet:${record.ownerId}` });
  }
}
