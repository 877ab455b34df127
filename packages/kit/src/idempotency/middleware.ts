import { randomUUID } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Db, SqlStatement, Tx } from '../db';
import { AppError } from '../errors';
import { claimsOf, correlationIdOf, errorCodeOf } from '../http';
import type { Logger } from '../logger';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, parseIdempotencyKey, requestFingerprint } from './fingerprint';
import { errorResponse, sendStoredResponse } from './response';
import {
  checkedTiming,
  claimIdempotencyKey,
  type ClaimOutcome,
  type ClaimTiming,
  completeInTransaction,
  completionStatement,
  finalAnswerStatement,
  type FinalAnswer,
  type IdempotencyClaim,
  IdempotencyInProgressError,
  type IdempotencyScope,
  idempotencyKeyReusedError,
  IN_PROGRESS_RETRY_AFTER_SECONDS,
  isRememberedStatus,
  SECONDS_PER_HOUR,
  startClaimHeartbeat,
  storeFinalResponse,
  type StoredResponse,
} from './store';
import { idempotencyLogger, releaseQuietly } from './transactional';

/** Headers replayed with a remembered answer; per-response ones (correlation id, date, length) are made fresh. */
export const DEFAULT_REPLAYED_HEADERS: readonly string[] = ['content-type', 'location'];

/**
 * Where the platform operator's keys live (system routes): a tenant id no tenant can have, so
 * they never meet a tenant's. The fingerprint holds the path, which names the organization a
 * system route acts on.
 */
export const SYSTEM_IDEMPOTENCY_SCOPE: IdempotencyScope = { tenantId: 'system', environment: 'live' };

/** The key space of the caller: its tenant and environment, or the platform operator's. */
export function idempotencyScopeOf(response: Response): IdempotencyScope {
  const claims = claimsOf(response);
  if (claims.surface === 'system') return SYSTEM_IDEMPOTENCY_SCOPE;
  if (claims.surface !== 'tenant' || !claims.tenantId || !claims.environment) {
    throw new AppError('INSUFFICIENT_SCOPE', 'This route is for tenant credentials');
  }
  return { tenantId: claims.tenantId, environment: claims.environment };
}

/**
 * Seals the body of each answer a route's keys remember, and opens it again to replay it: for
 * answers that hold a secret shown once (a new API key, a webhook secret), which must not lie
 * in the table in clear. The key's scope and name are the context a sealed body is bound to.
 */
export interface AnswerSealing {
  seal(body: Buffer, where: { scope: IdempotencyScope; key: string }): Buffer;
  open(body: Buffer, where: { scope: IdempotencyScope; key: string }): Buffer;
}

export interface IdempotencyOptions extends ClaimTiming {
  db: Db;
  /** True on routes that refuse to run without a key (400 IDEMPOTENCY_KEY_REQUIRED); false runs them unguarded. */
  required: boolean;
  /** Renewal stops after this long, so a handler stuck for good does not block its key until it expires. */
  maxHoldMs?: number;
  /** Further response headers to remember besides content-type and location (names, any case). */
  replayHeaders?: readonly string[];
  logger?: Logger;
  /**
   * The route writes its key itself, with its first answer, in its first statement
   * (firstAnswersStatement of `claim`, then `written()`), instead of the key being claimed in a
   * statement of its own before the handler runs: one statement less on a hot route. Until
   * then the key is only a claim to be: when the handler answers without having written it (it
   * refused the request, or another attempt wrote the key first), the key is claimed then, and
   * what it already holds wins (its replay, 422 for another request, 409 while held). So every
   * attempt runs the handler up to that first statement, a retry too: nothing before it may
   * change anything.
   */
  claimAtFirstWrite?: boolean;
  /** Remembered answers are stored sealed and opened to replay (see AnswerSealing); not with claimAtFirstWrite. */
  sealing?: AnswerSealing;
}

/** What the route's handler gets on `res.locals` (read it with idempotencyOf) when a key guards the request. */
export interface IdempotencyHandle {
  readonly claim: IdempotencyClaim;
  /**
   * Marks the key completed with `response` in the handler's business transaction: the money
   * movement and the remembered answer then commit together (see completeInTransaction).
   */
  complete(tx: Tx, response: StoredResponse): Promise<void>;
  /**
   * Stores `response` as the key's final answer in the caller's transaction, replacing an answer
   * `complete` stored earlier (the 201 that replaces a 202 pending). When the handler then sends
   * exactly these bytes, the middleware does not store them again: one write, in the same
   * commit as the change the answer reports. Call it only in a transaction whose commit comes
   * before the answer is sent.
   */
  answer(tx: Tx, response: StoredResponse): Promise<void>;
  /** `complete` as a part of the caller's own WITH statement (see completionStatement). */
  completionStatement(response: StoredResponse): SqlStatement;
  /**
   * `answer` as a part of the caller's own WITH statement (see finalAnswerStatement); once that
   * statement committed with the answer stored, tell the handle with `answered`.
   */
  finalAnswerStatement(response: StoredResponse): SqlStatement;
  answered(response: StoredResponse): void;
  /** `response` as the key keeps it (sealed where the route seals), for a statement of many keys' answers. */
  kept(response: StoredResponse): FinalAnswer;
  /** claimAtFirstWrite: the statement that wrote the key with this claim's lock token committed. */
  written(): void;
}

const HANDLE_LOCAL = 'idempotency';

/** The key's handle for this request, or undefined when no key guards it (optional route, no header). */
export function idempotencyOf(response: Response): IdempotencyHandle | undefined {
  return response.locals[HANDLE_LOCAL] as IdempotencyHandle | undefined;
}

interface SentResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

function chunkBytes(chunk: unknown, encoding: BufferEncoding | undefined): Buffer | null {
  if (chunk === undefined || chunk === null) return null;
  if (typeof chunk === 'string') return Buffer.from(chunk, encoding ?? 'utf8');
  // Copied: a caller may reuse its buffer once write returned.
  if (chunk instanceof Uint8Array) return Buffer.from(chunk);
  throw new TypeError('response chunks must be strings, Buffers or Uint8Arrays');
}

/** write(chunk, encoding?, cb?) and end(chunk?, encoding?, cb?) or end(cb), as node's http accepts them. */
function splitArguments(args: unknown[]): { chunk: unknown; encoding: BufferEncoding | undefined; callback: (() => void) | undefined } {
  const [first, second, third] = args;
  if (typeof first === 'function') return { chunk: undefined, encoding: undefined, callback: first as () => void };
  if (typeof second === 'function') return { chunk: first, encoding: undefined, callback: second as () => void };
  return {
    chunk: first,
    encoding: typeof second === 'string' ? (second as BufferEncoding) : undefined,
    callback: typeof third === 'function' ? (third as () => void) : undefined,
  };
}

/**
 * Holds back the response until `beforeSend` has run with the exact status, headers and body
 * bytes the handler produced, then sends them unchanged. Wrapping write/end sees every answer,
 * whether the handler sent it (res.json, res.send, res.end) or the error middleware did, which
 * a helper the handler must remember to call would not. The answer is remembered before the
 * client gets it, so a client that retries at once after an answer finds it, never a 409.
 */
function captureResponse(response: Response, beforeSend: (sent: SentResponse) => Promise<SentResponse | void>): void {
  const originalEnd = response.end;
  const chunks: Buffer[] = [];
  let ended = false;

  const write = (...args: unknown[]): boolean => {
    const { chunk, encoding, callback } = splitArguments(args);
    if (ended) return false;
    const bytes = chunkBytes(chunk, encoding);
    if (bytes) chunks.push(bytes);
    if (callback) process.nextTick(callback);
    return true;
  };

  const end = (...args: unknown[]): Response => {
    const { chunk, encoding, callback } = splitArguments(args);
    // A second answer (an error thrown after the handler answered) is dropped: the first stands.
    if (ended) return response;
    ended = true;
    const bytes = chunkBytes(chunk, encoding);
    if (bytes) chunks.push(bytes);
    const captured: SentResponse = { status: response.statusCode, headers: { ...response.getHeaders() }, body: Buffer.concat(chunks) };
    void beforeSend(captured)
      .then(
        (replacement) => replacement ?? captured,
        () => captured,
      )
      .then((sent) => {
        if (!response.headersSent) {
          // Whatever ran while the answer was being remembered (an error handler setting a 500
          // and its own headers) is undone: the client gets exactly what was remembered.
          response.statusCode = sent.status;
          for (const name of response.getHeaderNames()) if (!(name in sent.headers)) response.removeHeader(name);
          for (const [name, value] of Object.entries(sent.headers)) if (value !== undefined) response.setHeader(name, value);
        }
        Reflect.apply(originalEnd, response, callback ? [sent.body, callback] : [sent.body]);
      });
    return response;
  };

  response.write = write as unknown as Response['write'];
  response.end = end as unknown as Response['end'];
}

function rememberedHeaders(headers: OutgoingHttpHeaders, names: ReadonlySet<string>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !names.has(name.toLowerCase())) continue;
    kept[name.toLowerCase()] = typeof value === 'number' ? String(value) : value;
  }
  return kept;
}

/** Whether `sent` is exactly the answer stored already: status, remembered headers and body bytes. */
function sameAnswer(stored: StoredResponse, sent: SentResponse, headerNames: ReadonlySet<string>): boolean {
  if (stored.status !== sent.status || !stored.body.equals(sent.body)) return false;
  const sentHeaders = rememberedHeaders(sent.headers, headerNames);
  const names = Object.keys(stored.headers);
  if (names.length !== Object.keys(sentHeaders).length) return false;
  return names.every((name) => JSON.stringify(stored.headers[name]) === JSON.stringify(sentHeaders[name]));
}

/** What one route's guard settles once, when the route is built: every request of the route shares it. */
interface Guard {
  options: IdempotencyOptions;
  timing: ReturnType<typeof checkedTiming>;
  logger: Logger;
  /** The response headers remembered with an answer, lower case. */
  headerNames: ReadonlySet<string>;
  sealing: AnswerSealing | undefined;
}

function guardOf(options: IdempotencyOptions): Guard {
  const timing = checkedTiming(options);
  const { sealing } = options;
  // A route that writes its key in its own statement stores answers the middleware never sees.
  if (sealing && options.claimAtFirstWrite) throw new Error('idempotency: sealing does not go with claimAtFirstWrite');
  return {
    options,
    timing,
    logger: idempotencyLogger(options.logger),
    headerNames: new Set([...DEFAULT_REPLAYED_HEADERS, ...(options.replayHeaders ?? []).map((name) => name.toLowerCase())]),
    sealing,
  };
}

/** The answer as the table keeps it: sealed when the route seals. */
function sealedAnswer(guard: Guard, claim: IdempotencyClaim, response: StoredResponse): StoredResponse {
  return guard.sealing ? { ...response, body: guard.sealing.seal(response.body, claim) } : response;
}

/** A remembered answer as it is sent again. */
function openedAnswer(guard: Guard, claim: { scope: IdempotencyScope; key: string }, response: StoredResponse): StoredResponse {
  return guard.sealing ? { ...response, body: guard.sealing.open(response.body, claim) } : response;
}

async function settle(guard: Guard, response: Response, claim: IdempotencyClaim, sent: SentResponse): Promise<void> {
  const errorCode = errorCodeOf(response);
  // An answer that asks to be retried later (Retry-After) changed nothing: the retry must run.
  const retryLater = sent.headers['retry-after'] !== undefined;
  const remembered = isRememberedStatus(sent.status) && !retryLater && !(errorCode ?? '').startsWith('IDEMPOTENCY_');
  if (!remembered) {
    await releaseQuietly(guard.options.db, claim, guard.logger);
    return;
  }
  const answer: StoredResponse = { status: sent.status, headers: rememberedHeaders(sent.headers, guard.headerNames), body: sent.body };
  try {
    // A 2xx sent after the handler completed the key in its transaction replaces what it
    // stored (the client got this one); anything else leaves a committed answer alone.
    await storeFinalResponse(guard.options.db, claim, sealedAnswer(guard, claim, answer), {
      replaceCompleted: sent.status >= 200 && sent.status < 300,
    });
  } catch (error) {
    // The answer still goes out. Left in progress, the key's lock lapses and a retry runs again:
    // the reason money paths complete the key in their own transaction.
    guard.logger.error({ err: error, idempotencyKey: claim.key }, 'idempotency answer could not be stored');
  }
}

/**
 * The answer a request gets in place of its own when, claimed at last, the key turned out to
 * hold something: its replay, or the refusal the key's protocol gives.
 */
function instead(response: Response, outcome: Exclude<ClaimOutcome, { kind: 'claimed' }>): SentResponse {
  const correlationId = correlationIdOf(response);
  const headers: OutgoingHttpHeaders = { 'x-correlation-id': correlationId };
  let answer: StoredResponse;
  if (outcome.kind === 'replay') {
    answer = outcome.response;
    headers[IDEMPOTENT_REPLAYED_HEADER.toLowerCase()] = 'true';
  } else if (outcome.kind === 'mismatch') {
    answer = errorResponse(idempotencyKeyReusedError(), correlationId);
  } else {
    answer = errorResponse(new IdempotencyInProgressError(), correlationId);
    headers['retry-after'] = String(IN_PROGRESS_RETRY_AFTER_SECONDS);
  }
  return { status: answer.status, headers: { ...answer.headers, ...headers }, body: answer.body };
}

/**
 * The handle of a request that holds `claim` (or will, at its first write), and what it has
 * answered so far through the handle: an answer stored in the handler's own statement is not
 * stored again when exactly it is sent.
 */
function handleOf(
  guard: Guard,
  claim: IdempotencyClaim,
  onWritten: () => void,
): { handle: IdempotencyHandle; answered(): StoredResponse | null } {
  let answered: StoredResponse | null = null;
  const handle: IdempotencyHandle = {
    claim,
    complete: (tx, answer) => completeInTransaction(tx, claim, sealedAnswer(guard, claim, answer)),
    answer: async (tx, answer) => {
      const kept = await storeFinalResponse(tx, claim, sealedAnswer(guard, claim, answer), { replaceCompleted: true });
      if (!kept) throw new IdempotencyInProgressError('Another attempt with this Idempotency-Key took over; retry to get its answer');
      answered = answer;
    },
    completionStatement: (answer) => completionStatement(claim, sealedAnswer(guard, claim, answer)),
    finalAnswerStatement: (answer) => finalAnswerStatement(claim, sealedAnswer(guard, claim, answer)),
    answered: (answer) => {
      answered = answer;
    },
    kept: (answer) => ({ claim, response: sealedAnswer(guard, claim, answer) }),
    written: onWritten,
  };
  return { handle, answered: () => answered };
}

/** What a held key does with the answer about to be sent: nothing if the handler stored exactly it, else remember or release. */
async function answerHeld(
  guard: Guard,
  response: Response,
  claim: IdempotencyClaim,
  stored: StoredResponse | null,
  sent: SentResponse,
): Promise<void> {
  // A handler whose claim was taken over answers 409 too: it invites the same retry as ours.
  if (errorCodeOf(response) === 'IDEMPOTENCY_REQUEST_IN_PROGRESS') sent.headers['retry-after'] = String(IN_PROGRESS_RETRY_AFTER_SECONDS);
  if (stored && sameAnswer(stored, sent, guard.headerNames)) return;
  await settle(guard, response, claim, sent);
}

/** See IdempotencyOptions.claimAtFirstWrite. */
function claimAtFirstWrite(guard: Guard, response: Response, prospective: IdempotencyClaim): void {
  let written = false;
  const { handle, answered } = handleOf(guard, prospective, () => {
    written = true;
  });
  response.locals[HANDLE_LOCAL] = handle;
  captureResponse(response, async (sent) => {
    if (written) return answerHeld(guard, response, prospective, answered(), sent);
    // Nothing of this request wrote the key: claimed now, as the key would have been first.
    const outcome = await claimIdempotencyKey(guard.options.db, prospective.scope, prospective.key, prospective.fingerprint, guard.timing);
    if (outcome.kind !== 'claimed') return instead(response, outcome);
    return answerHeld(guard, response, outcome.claim, null, sent);
  });
}

/** The request's fingerprint: what a retry must repeat exactly to get the key's answer. */
function fingerprintOf(request: Request, response: Response): string {
  const rawBody: unknown = response.locals.rawBody;
  // Without the raw bytes, different bodies would look alike and get each other's answers.
  if (!Buffer.isBuffer(rawBody)) throw new Error('idempotency() needs jsonBodyMiddleware before it (res.locals.rawBody)');
  return requestFingerprint({ method: request.method, pathWithQuery: request.originalUrl, principal: claimsOf(response), body: rawBody });
}

/** A key just claimed: renewed while the handler runs, and settled with the answer it sends. */
function holdClaim(guard: Guard, response: Response, claim: IdempotencyClaim): void {
  const heartbeat = startClaimHeartbeat(guard.options.db, claim, {
    lockTimeoutMs: guard.timing.lockTimeoutMs,
    maxHoldMs: guard.options.maxHoldMs,
    onError: (error) => guard.logger.warn({ err: error, idempotencyKey: claim.key }, 'idempotency lock renewal failed'),
  });
  // Claimed already: the handler's writes only complete or answer the key.
  const { handle, answered } = handleOf(guard, claim, () => undefined);
  response.locals[HANDLE_LOCAL] = handle;
  captureResponse(response, async (sent) => {
    heartbeat.stop();
    await answerHeld(guard, response, claim, answered(), sent);
  });
}

/**
 * Idempotency for one route, after the internal-token and body middleware:
 *
 * - no Idempotency-Key: 400 IDEMPOTENCY_KEY_REQUIRED when `required`, else the route runs unguarded;
 * - a malformed key: 400 VALIDATION_ERROR;
 * - a key answered before, same request: that answer again, byte for byte, with
 *   `Idempotent-Replayed: true`; another request (fingerprint): 422 IDEMPOTENCY_KEY_REUSED;
 * - a key another attempt holds: 409 IDEMPOTENCY_REQUEST_IN_PROGRESS with Retry-After: 1;
 *   a holder that crashed stops renewing its lock, and once it lapses one retry takes over;
 * - else the route runs holding the key; its answer is remembered when it is a 2xx or a
 *   business 4xx (isRememberedStatus) without Retry-After, and the key is released (a retry
 *   runs again) after a 5xx, including a handler that threw, or an answer with Retry-After.
 *
 * Keys are per tenant and environment (from the internal token) and kept `ttlHours` (>= 24).
 * Money paths also call `idempotencyOf(res).complete(tx, answer)` inside their business
 * transaction: the claim then cannot outlive a crash between the commit and the answer.
 */
export function idempotency(options: IdempotencyOptions): RequestHandler {
  const guard = guardOf(options);
  const { timing } = guard;

  return async (request: Request, response: Response, next: NextFunction): Promise<void> => {
    const key = parseIdempotencyKey(request.get(IDEMPOTENCY_KEY_HEADER));
    if (key === undefined) {
      if (options.required) throw new AppError('IDEMPOTENCY_KEY_REQUIRED', 'This operation requires an Idempotency-Key header');
      return next();
    }
    const scope = idempotencyScopeOf(response);
    const fingerprint = fingerprintOf(request, response);

    if (options.claimAtFirstWrite) {
      const ttlSeconds = timing.ttlHours * SECONDS_PER_HOUR;
      claimAtFirstWrite(guard, response, { scope, key, fingerprint, lockToken: randomUUID(), takenOver: false, ttlSeconds });
      next();
      return;
    }

    const outcome = await claimIdempotencyKey(options.db, scope, key, fingerprint, timing);
    if (outcome.kind === 'replay')
      return sendStoredResponse(response, openedAnswer(guard, { scope, key }, outcome.response), { replayed: true });
    if (outcome.kind === 'mismatch') throw idempotencyKeyReusedError();
    if (outcome.kind === 'in_progress') {
      response.setHeader('Retry-After', String(IN_PROGRESS_RETRY_AFTER_SECONDS));
      throw new IdempotencyInProgressError();
    }
    holdClaim(guard, response, outcome.claim);
    next();
  };
}
