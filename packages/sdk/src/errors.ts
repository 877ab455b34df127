import { type ErrorCode, ERROR_STATUS } from '@wallet/contracts';
import type { z } from 'zod';

/**
 * The API's error codes, plus one for answers that are not the API's error body: a proxy's HTML
 * page, or a code newer than this SDK (its text is still in `serverCode`).
 */
export type WalletErrorCode = ErrorCode | 'UNKNOWN_ERROR';

export type ValidationIssues = z.core.$ZodIssue[];

// A brand shared across copies of this package: `instanceof` fails when an application ends up
// with two installed versions, the brand does not.
const API_ERROR_BRAND = Symbol.for('@wallet/sdk/WalletApiError');

export interface WalletApiErrorInit {
  status: number;
  code: WalletErrorCode;
  serverCode: string | null;
  message: string;
  details: Record<string, unknown> | undefined;
  correlationId: string | null;
  retryAfterSeconds: number | undefined;
  idempotencyKey: string | null;
  attempts: number;
}

/** The API answered with an error status. */
export class WalletApiError extends Error {
  override readonly name = 'WalletApiError';
  readonly status: number;
  readonly code: WalletErrorCode;
  /** The code exactly as the server sent it; null when the body was not the API's error body. */
  readonly serverCode: string | null;
  readonly details: Record<string, unknown> | undefined;
  readonly correlationId: string | null;
  /** From `Retry-After` (429, sometimes 503): how long the server asks the caller to wait. */
  readonly retryAfterSeconds?: number;
  /** The key the request carried, so a caller can repeat the same logical call safely. */
  readonly idempotencyKey: string | null;
  readonly attempts: number;
  readonly [API_ERROR_BRAND] = true;

  constructor(init: WalletApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.serverCode = init.serverCode;
    this.details = init.details;
    this.correlationId = init.correlationId;
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    this.idempotencyKey = init.idempotencyKey;
    this.attempts = init.attempts;
  }
}

/**
 * No HTTP answer arrived (connection refused or reset, DNS, timeout) on the last attempt. For a
 * request that was not safe to repeat, the server may or may not have applied it.
 */
export class WalletNetworkError extends Error {
  override readonly name = 'WalletNetworkError';
  readonly timedOut: boolean;
  readonly attempts: number;
  readonly idempotencyKey: string | null;

  constructor(message: string, init: { cause: unknown; timedOut: boolean; attempts: number; idempotencyKey: string | null }) {
    super(message, { cause: init.cause });
    this.timedOut = init.timedOut;
    this.attempts = init.attempts;
    this.idempotencyKey = init.idempotencyKey;
  }
}

/** The request failed the route's schema locally; nothing was sent. */
export class WalletRequestValidationError extends Error {
  override readonly name = 'WalletRequestValidationError';
  readonly issues: ValidationIssues;

  constructor(message: string, issues: ValidationIssues = []) {
    super(message);
    this.issues = issues;
  }
}

/**
 * A success answer did not match the route's contract: the server and this SDK have drifted
 * apart. The request itself succeeded; `body` holds what came back.
 */
export class WalletResponseValidationError extends Error {
  override readonly name = 'WalletResponseValidationError';
  readonly status: number;
  readonly correlationId: string | null;
  readonly issues: ValidationIssues;
  readonly body: unknown;

  constructor(message: string, init: { status: number; correlationId: string | null; issues: ValidationIssues; body: unknown }) {
    super(message);
    this.status = init.status;
    this.correlationId = init.correlationId;
    this.issues = init.issues;
    this.body = init.body;
  }
}

export function isWalletApiError(error: unknown): error is WalletApiError;
export function isWalletApiError<Code extends WalletErrorCode>(
  error: unknown,
  code: Code,
): error is WalletApiError & { readonly code: Code };
export function isWalletApiError(error: unknown, code?: WalletErrorCode): boolean {
  const branded =
    error instanceof WalletApiError ||
    (typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[API_ERROR_BRAND] === true);
  return branded && (code === undefined || (error as WalletApiError).code === code);
}

export function isKnownErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_STATUS, code);
}
