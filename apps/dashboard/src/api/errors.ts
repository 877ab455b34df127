import { type ErrorCode, ERROR_STATUS } from '@wallet/contracts';

/**
 * The API's error codes, plus the dashboard's own for answers that are not the API's error
 * body (a proxy's page, a network failure) or a success the route contract does not describe.
 */
export type DashboardErrorCode = ErrorCode | 'UNKNOWN_ERROR' | 'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE';

export interface ApiErrorInit {
  status: number;
  code: DashboardErrorCode;
  message: string;
  details?: Record<string, unknown> | undefined;
  correlationId: string | null;
}

/** What every failed call throws: enough for an error state a user can quote to support. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: DashboardErrorCode;
  readonly details: Record<string, unknown> | undefined;
  /** From the body's error, else the `x-correlation-id` header; null when no answer arrived. */
  readonly correlationId: string | null;

  constructor(init: ApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.correlationId = init.correlationId;
  }
}

export function isApiError(error: unknown, code?: DashboardErrorCode): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.code === code);
}

export function isKnownErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_STATUS, code);
}

/** A 401 means the session is gone (expired, logged out elsewhere): the app returns to its login page. */
export function isUnauthorized(error: unknown): boolean {
  return isApiError(error) && error.status === 401;
}
