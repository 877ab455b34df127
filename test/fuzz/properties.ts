import { isUtf8 } from 'node:buffer';
import querystring from 'node:querystring';
import BigNumber from 'bignumber.js';
import {
  CURRENCY_SCALES,
  ERROR_STATUS,
  errorBodySchema,
  idPattern,
  type IdKind,
  isAcceptableRequestNonce,
  isLosslessNumber,
  parseJsonLossless,
} from '@wallet/contracts';
import {
  type FuzzOperation,
  type FuzzRequest,
  type FuzzWorld,
  idShapeOf,
  type JsonSchema,
  kindOfPathParam,
  type ResourceKind,
} from './generators';

/**
 * What every answer must satisfy, and why a request must be refused: the contract's own
 * schemas, plus the rules of the decision records (docs/decisions/) the schemas do not carry
 * yet (amounts at their currency's scale and within the tenant's maximum, no NUL in text, only
 * UTF-8 JSON, nonces of 128 bits, cursors the service issued, ids of the caller's own tenant and
 * environment).
 */

// ---- why the contract refuses a request ---------------------------------------------------------

export type RefusalReason =
  | 'credential'
  | 'nonce-format'
  | 'signed-request-broken'
  | 'path-shape'
  | 'path-id'
  | 'query-schema'
  | 'filter-id-shape'
  | 'forged-cursor'
  | 'nul'
  | 'content-type'
  | 'charset'
  | 'malformed-json'
  | 'not-utf8'
  | 'body-not-object'
  | 'body-schema'
  | 'amount-format'
  | 'amount-scale'
  | 'amount-digits'
  | 'over-tenant-max'
  | 'foreign-or-unknown-id'
  | 'depositedBy-not-member'
  | 'idempotency-key-missing';

const DECIMAL_TEXT = /^(0|[1-9]\d*)(\.\d+)?$/;
/** Integer digits no amount field may exceed, whatever limit contracts settle on (the issue suggests 18). */
const AMOUNT_INTEGER_DIGITS_CEILING = 30;

const MONEY_MOVEMENTS: ReadonlySet<string> = new Set([
  '/v1/transfers',
  '/v1/payouts',
  '/v1/deposits/bank-slips',
  '/v1/deposits/momo-webhook',
  '/v1/admin/money/float-deposits',
  '/v1/admin/money/withdrawals',
]);
const FEE_AMOUNT_FIELDS: ReadonlySet<string> = new Set(['minAmount', 'maxAmount', 'flatFee', 'minFee', 'maxFee']);
/** Routes whose body `actorId` must be a member of the caller's tenant: decisions, and a slip's verification. */
const ACTOR_ROUTES = /^\/v1\/((payouts|admin\/money\/withdrawals)\/\{id\}\/(approve|reject)|deposits\/\{id\}\/verify)$/;
/** Filters that name one kind of id: a value of another shape is a 400, not an empty page. */
const ID_FILTERS: Record<string, IdKind> = { walletId: 'wallet', apiKeyId: 'apiKey', tenantId: 'tenant' };

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function allIds(world: FuzzWorld, kind: ResourceKind): Set<string> {
  return new Set([...world.ids.own[kind], ...world.ids.otherEnvironment[kind], ...world.ids.otherTenant[kind]]);
}

function credentialReasons(request: FuzzRequest): RefusalReason[] {
  const { surface } = request.operation.route;
  const { credential } = request;
  if (surface === 'public') return [];
  if (surface === 'system')
    return credential.kind === 'system' || (credential.kind === 'other' && credential.label === 'key and system key') ? [] : ['credential'];
  if (credential.kind === 'none' || credential.kind === 'system') return ['credential'];
  if (credential.kind === 'other') return credential.label === 'key and system key' ? [] : ['credential'];
  if (credential.kind !== 'hmac') return [];
  const reasons: RefusalReason[] = [];
  if (credential.nonce !== undefined && !isAcceptableRequestNonce(credential.nonce)) reasons.push('nonce-format');
  if (
    credential.timestamp !== undefined ||
    credential.contentSha256 !== undefined ||
    credential.badSignature ||
    credential.omit !== undefined
  )
    reasons.push('signed-request-broken');
  return reasons;
}

function isListRoute(operation: FuzzOperation): boolean {
  return operation.queryParams.some((parameter) => parameter.name === 'cursor');
}

/**
 * A tenant names only its own resources: anything else in a path is a 404. The platform names
 * any tenant's, so only an id of the wrong shape, or an unknown one of a resource itself (not of
 * the parent of a list, which may answer an empty page), is certainly refused.
 */
function pathReasons(request: FuzzRequest, world: FuzzWorld): RefusalReason[] {
  const { operation } = request;
  const template = operation.template.replace(/\{(\w+)\}/g, (_match, name: string) => request.pathParams[name] ?? '');
  if (request.path !== template) return ['path-shape'];
  for (const param of operation.pathParams) {
    const kind = kindOfPathParam(operation.template, param);
    const value = decoded(request.pathParams[param] ?? '');
    if (value === null || !idShapeOf(kind).test(value)) return ['path-id'];
    const known = operation.route.surface === 'system' ? allIds(world, kind) : visibleIds(world, kind, request);
    const mustExist = operation.route.surface !== 'system' || !isListRoute(operation);
    if (mustExist && !known.has(value)) return ['path-id'];
  }
  return [];
}

/** The ids a path may name: a dashboard session sees the API keys of both environments (a key only those of its own). */
function visibleIds(world: FuzzWorld, kind: ResourceKind, request: FuzzRequest): Set<string> {
  const own = world.ids.own[kind];
  return new Set(kind === 'apiKey' && request.credential.kind === 'session' ? [...own, ...world.ids.otherEnvironment.apiKey] : own);
}

function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(hasNul);
  return false;
}

function queryReasons(request: FuzzRequest, world: FuzzWorld): RefusalReason[] {
  const schema = request.operation.route.query;
  if (!schema) return [];
  const parsed = querystring.parse(request.query);
  const reasons: RefusalReason[] = [];
  if (!schema.safeParse({ ...parsed }).success) reasons.push('query-schema');
  const known = new Set(request.operation.queryParams.map((parameter) => parameter.name));
  if (Object.entries(parsed).some(([name, value]) => known.has(name) && hasNul(value))) reasons.push('nul');
  const cursor = parsed.cursor;
  // A cursor is the issuing list's alone: another list's, however real, is refused as a forged one.
  if (cursor !== undefined && (typeof cursor !== 'string' || world.cursorPaths[cursor] !== request.path)) reasons.push('forged-cursor');
  for (const [name, kind] of Object.entries(ID_FILTERS)) {
    const value = parsed[name];
    if (typeof value === 'string' && known.has(name) && !idPattern(kind).test(value)) reasons.push('filter-id-shape');
  }
  const walletIds = parsed.walletIds;
  if (typeof walletIds === 'string' && known.has('walletIds') && walletIds.split(',').some((id) => !idPattern('wallet').test(id)))
    reasons.push('filter-id-shape');
  return reasons;
}

function mediaTypeOf(contentType: string | undefined): { mediaType: string; charset: string | null } {
  const [mediaType = '', ...parameters] = (contentType ?? '').split(';');
  let charset: string | null = null;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=');
    if (name?.trim().toLowerCase() === 'charset')
      charset = (value ?? '')
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
  }
  return { mediaType: mediaType.trim().toLowerCase(), charset };
}

function amountText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (isLosslessNumber(value)) return value.toString();
  return null;
}

function integerDigits(text: string): number {
  return (text.replace(/^[-+]/, '').split(/[.eE]/)[0] ?? '').replace(/^0+(?=\d)/, '').length;
}

function amountReasons(text: string, currencyCode: unknown, maximum: string | null): RefusalReason[] {
  if (!DECIMAL_TEXT.test(text))
    return integerDigits(text) > AMOUNT_INTEGER_DIGITS_CEILING ? ['amount-format', 'amount-digits'] : ['amount-format'];
  const reasons: RefusalReason[] = [];
  const value = new BigNumber(text);
  if (value.isZero()) reasons.push('amount-format');
  if (integerDigits(text) > AMOUNT_INTEGER_DIGITS_CEILING) reasons.push('amount-digits');
  const scale =
    typeof currencyCode === 'string' && Object.hasOwn(CURRENCY_SCALES, currencyCode) ? CURRENCY_SCALES[currencyCode] : undefined;
  if (scale !== undefined && (text.split('.')[1]?.length ?? 0) > scale) reasons.push('amount-scale');
  if (maximum !== null && value.gt(maximum)) reasons.push('over-tenant-max');
  return reasons;
}

/** Strings of the fields the route's schema names, wherever they are nested. */
function knownStrings(value: unknown, schema: JsonSchema | undefined): string[] {
  if (schema === undefined) return [];
  if (typeof value === 'string') return [value];
  const branches = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (Array.isArray(value)) return value.flatMap((member) => branches.flatMap((branch) => knownStrings(member, branch.items)));
  if (typeof value !== 'object' || value === null || isLosslessNumber(value)) return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, member]) => {
    const property = branches.map((branch) => branch.properties?.[key]).find((each) => each !== undefined);
    return property ? knownStrings(member, property) : [];
  });
}

function ownIds(world: FuzzWorld, kind: ResourceKind): Set<string> {
  return new Set(kind === 'wallet' ? [...world.ids.own.wallet, ...world.wallets.map((wallet) => wallet.id)] : world.ids.own[kind]);
}

function bodyFieldReasons(operation: FuzzOperation, body: Record<string, unknown>, world: FuzzWorld): RefusalReason[] {
  const reasons: RefusalReason[] = [];
  const template = operation.template;
  if (MONEY_MOVEMENTS.has(template)) {
    const text = amountText(body.amount);
    if (text !== null) reasons.push(...amountReasons(text, body.currencyCode, world.maxTransactionAmount));
  }
  const config = body.config as Record<string, unknown> | undefined;
  const maximum = amountText(config?.maxTransactionAmount);
  if (maximum !== null) reasons.push(...amountReasons(maximum, null, null).filter((reason) => reason !== 'amount-scale'));
  for (const field of FEE_AMOUNT_FIELDS) {
    const text = amountText(body[field]);
    if (text !== null && integerDigits(text) > AMOUNT_INTEGER_DIGITS_CEILING) reasons.push('amount-digits');
  }
  if (template !== '/v1/deposits/momo-webhook') {
    const wallets = ownIds(world, 'wallet');
    for (const field of ['walletId', 'fromWalletId', 'toWalletId']) {
      if (typeof body[field] === 'string' && !wallets.has(body[field] as string)) reasons.push('foreign-or-unknown-id');
    }
  }
  const members = ownIds(world, 'member');
  if (typeof body.requestedBy === 'string' && !members.has(body.requestedBy)) reasons.push('foreign-or-unknown-id');
  if (ACTOR_ROUTES.test(template) && typeof body.actorId === 'string' && !members.has(body.actorId)) reasons.push('foreign-or-unknown-id');
  if (template === '/v1/admin/money/float-deposits' && typeof body.depositedBy === 'string' && !members.has(body.depositedBy.trim()))
    reasons.push('depositedBy-not-member');
  return reasons;
}

function bodyReasons(request: FuzzRequest, world: FuzzWorld): RefusalReason[] {
  const { operation } = request;
  const schema = operation.route.body;
  if (!schema) return [];
  if (request.body === null || request.body.length === 0) return schema.safeParse({}).success ? [] : ['body-schema'];
  const { mediaType, charset } = mediaTypeOf(request.headers['content-type']);
  const json = mediaType === 'application/json' || mediaType.endsWith('+json');
  if (!json) return operation.otherMediaTypes.includes(mediaType) ? [] : ['content-type'];
  if (charset !== null && charset !== 'utf-8') return ['charset'];
  // Decoded anyway, invalid bytes would turn into U+FFFD: text the client never sent.
  if (!isUtf8(request.body)) return ['not-utf8'];
  const text = request.body.toString('utf8');
  let parsed: unknown;
  try {
    JSON.parse(text);
    parsed = parseJsonLossless(text);
  } catch {
    return ['malformed-json'];
  }
  // A bare value (123, "x", [], null) is no body of any route, even one whose fields are all optional.
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || isLosslessNumber(parsed)) return ['body-not-object'];
  const reasons: RefusalReason[] = [];
  if (!schema.safeParse(parsed).success) reasons.push('body-schema');
  if (knownStrings(parsed, operation.bodySchema).some((value) => value.includes('\u0000'))) reasons.push('nul');
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
    reasons.push(...bodyFieldReasons(operation, parsed as Record<string, unknown>, world));
  return reasons;
}

function idempotencyReasons(request: FuzzRequest): RefusalReason[] {
  const required = request.method === 'POST' && request.operation.route.summary.includes('Idempotency-Key required');
  const key = request.headers['idempotency-key'];
  return required && (key === undefined || key.trim() === '') ? ['idempotency-key-missing'] : [];
}

/** Every reason the contract gives to refuse this request; empty when it may be accepted. */
export function refusalReasons(request: FuzzRequest, world: FuzzWorld): RefusalReason[] {
  const reasons = [
    ...credentialReasons(request),
    ...pathReasons(request, world),
    ...queryReasons(request, world),
    ...bodyReasons(request, world),
    ...idempotencyReasons(request),
  ];
  return [...new Set(reasons)];
}

// ---- what every answer must be ----------------------------------------------------------------------

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bodyText: string;
  /** What the service that failed logged, for a 5xx. */
  serverError?: string;
}

export type Property = 'no-5xx' | 'error-body' | 'refuses-what-the-contract-refuses' | 'refusal-changes-nothing' | 'replays-a-create';

export interface Violation {
  property: Property;
  detail: string;
}

function errorCodeOf(answer: Answer): string | undefined {
  try {
    return (JSON.parse(answer.bodyText) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

export function answerViolations(answer: Answer, reasons: readonly RefusalReason[]): Violation[] {
  if (answer.status >= 500) return [{ property: 'no-5xx', detail: `${answer.status} ${errorCodeOf(answer) ?? ''}`.trim() }];
  if (answer.status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(answer.bodyText);
    } catch {
      return [{ property: 'error-body', detail: `${answer.status} with a body that is not JSON: ${answer.bodyText.slice(0, 120)}` }];
    }
    const checked = errorBodySchema.safeParse(body);
    if (!checked.success)
      return [
        {
          property: 'error-body',
          detail: `${answer.status} with a body that is not {"error":{code,message,details?,correlationId}} of a known code: ${answer.bodyText.slice(0, 160)}`,
        },
      ];
    const expected = ERROR_STATUS[checked.data.error.code];
    if (expected !== answer.status)
      return [{ property: 'error-body', detail: `${answer.status} with code ${checked.data.error.code}, whose status is ${expected}` }];
    return [];
  }
  if (reasons.length > 0)
    return [
      {
        property: 'refuses-what-the-contract-refuses',
        detail: `${answer.status} for a request the contract refuses (${reasons.join(', ')})`,
      },
    ];
  return [];
}

/**
 * POSTs that create something: sent again with the same Idempotency-Key and body, each answers
 * what it answered the first time instead of creating a second one.
 */
const IDEMPOTENT_CREATES: ReadonlySet<string> = new Set([
  '/v1/developer/api-keys',
  '/v1/tenants/{id}/api-keys',
  '/v1/team',
  '/v1/admin/momo-providers',
  '/v1/admin/fee-schedules',
  '/v1/admin/fee-schedules/{id}/rules',
  '/v1/system/organizations/{tenantId}/fee-schedules',
  '/v1/system/organizations/{tenantId}/fee-schedules/{scheduleId}/rules',
  '/v1/wallets',
  '/v1/deposits/bank-slips',
  '/v1/bank-statements',
  '/v1/transfers',
  '/v1/payouts',
  '/v1/admin/money/float-deposits',
  '/v1/admin/money/withdrawals',
]);

/** A create answered 2xx under an Idempotency-Key: its replay must be checked. */
export function replaysOnKey(request: FuzzRequest, answer: Answer): boolean {
  const key = request.headers['idempotency-key'];
  // A nonce chosen by the case would be a replayed nonce the second time: not what is checked here.
  if (request.credential.kind === 'hmac' && request.credential.nonce !== undefined) return false;
  return (
    request.method === 'POST' &&
    IDEMPOTENT_CREATES.has(request.operation.template) &&
    key !== undefined &&
    key.trim() !== '' &&
    answer.status >= 200 &&
    answer.status < 300
  );
}

export function replayViolations(first: Answer, replay: Answer): Violation[] {
  let same = first.status === replay.status;
  try {
    same &&= JSON.stringify(JSON.parse(first.bodyText)) === JSON.stringify(JSON.parse(replay.bodyText));
  } catch {
    same &&= first.bodyText === replay.bodyText;
  }
  const what = first.status === replay.status ? 'another record' : `${replay.status} ${errorCodeOf(replay) ?? ''}`.trim();
  return same
    ? []
    : [{ property: 'replays-a-create', detail: `sent again under the same Idempotency-Key: ${first.status} first, then ${what}` }];
}

/**
 * A refusal the API documents as recorded (the ledger refused the money, a webhook that does not
 * verify): its record may appear, no money may move. Everything else refused changes nothing.
 * Such a refusal names its record in its details, except a webhook delivery that does not verify.
 */
export const RECORDED_REFUSAL_DETAILS = ['transferId', 'payoutCaseId', 'withdrawalId', 'floatDepositId', 'depositId'] as const;
export const WEBHOOK_REJECTIONS: ReadonlySet<string> = new Set([
  'INVALID_WEBHOOK_SIGNATURE',
  'AMOUNT_EXCEEDS_LIMIT',
  'CURRENCY_NOT_ALLOWED',
  'CURRENCY_MISMATCH',
]);

export function mayRecordRefusal(request: FuzzRequest, answer: Answer, reasons: readonly RefusalReason[]): boolean {
  let error: { code?: string; details?: Record<string, unknown> } | undefined;
  try {
    error = (JSON.parse(answer.bodyText) as { error?: typeof error }).error;
  } catch {
    return false;
  }
  const namesRecord = RECORDED_REFUSAL_DETAILS.some((field) => typeof error?.details?.[field] === 'string');
  if (request.operation.template !== '/v1/deposits/momo-webhook') return namesRecord && reasons.length === 0;
  // A delivery that does not verify is recorded without being named: its answer must not tell an unsigned caller which ids exist.
  const recorded = namesRecord || error?.code === 'INVALID_WEBHOOK_SIGNATURE';
  return recorded && WEBHOOK_REJECTIONS.has(error?.code ?? '') && !reasons.includes('amount-digits') && !reasons.includes('nul');
}

// ---- the known defects, to label what is found ----------------------------------------

export interface DefectLabel {
  defect: number | null;
  title: string;
}

const TITLES: Record<number, string> = {
  1: 'issue 16 defect 1: NUL in text, or an id of the wrong shape in a path or filter',
  2: 'issue 16 defect 2: amounts beyond any limit (131,072+ integer digits, or stored when refused)',
  3: 'issue 16 defect 3: a cursor the list never issued',
  5: 'issue 16 defect 5: maxTransactionAmount applies to every money movement',
  6: 'issue 16 defect 6: fraction digits past the currency scale',
  7: 'issue 16 defect 7: signed-request nonce format',
  8: 'issue 16 defect 8: bodies in another charset than UTF-8',
  9: 'issue 16 defect 9: depositedBy must be an active member',
  10: 'issue 16 defect 10: creates that ignore Idempotency-Key',
};

function label(defect: number): DefectLabel {
  return { defect, title: TITLES[defect] as string };
}

const REASON_DEFECTS: ReadonlyArray<readonly [RefusalReason, number]> = [
  ['amount-digits', 2],
  ['nul', 1],
  ['filter-id-shape', 1],
  ['forged-cursor', 3],
  ['over-tenant-max', 5],
  ['amount-scale', 6],
  ['nonce-format', 7],
  ['charset', 8],
  ['depositedBy-not-member', 9],
];

function carriesNul(request: FuzzRequest): boolean {
  return (
    request.tags.some((tag) => tag === 'nul' || tag === 'query-nul') ||
    /%00/.test(request.path + request.query) ||
    (request.body?.includes(0) ?? false)
  );
}

/** Which of the defects a violation is an instance of, or null for one the issue does not list. */
export function defectOf(violation: Violation, request: FuzzRequest, reasons: readonly RefusalReason[], answer: Answer): DefectLabel {
  const message = answer.serverError ?? '';
  if (violation.property === 'replays-a-create') return label(10);
  if (violation.property === 'no-5xx') {
    // A path parameter express cannot decode fails before any handler: not the NUL defect.
    if (/Failed to decode param|URI malformed/.test(message)) return { defect: null, title: 'NOT among the issue 16 defects' };
    if (/0x00|invalid byte sequence|null character/i.test(message) || (message === '' && carriesNul(request))) return label(1);
    if (
      /overflow|out of range for type numeric|value too long for type numeric/i.test(message) &&
      (reasons.includes('amount-digits') || reasons.includes('amount-format'))
    )
      return label(2);
    if (reasons.includes('forged-cursor') && !/Failed to decode/.test(message)) return label(3);
    if (carriesNul(request)) return label(1);
    return { defect: null, title: 'NOT among the issue 16 defects' };
  }
  // Accepted, or refused but recorded: the reason the contract refuses it names the defect.
  for (const [reason, defect] of REASON_DEFECTS) {
    if (reasons.includes(reason)) return label(defect);
  }
  return { defect: null, title: 'NOT among the issue 16 defects' };
}
