import { type ErrorCode, statusOf } from '@wallet/contracts/errors';
import { findUnsafeText } from '@wallet/contracts/text';
import { configureJsonKindMessages } from '@wallet/contracts/zod-messages';
import type { z } from 'zod';

// Whatever a service validates, its type mismatches are told in JSON's words.
configureJsonKindMessages();

/** A domain error with a stable code; the error middleware alone turns it into HTTP. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = statusOf(code);
  }
}

/**
 * A refusal that may pass if the client tries again later, with nothing changed meanwhile: the
 * error middleware sends `Retry-After` with it, and an idempotency key does not keep it as the
 * key's answer, so the retry runs.
 */
export class RetryLaterError extends AppError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly retryAfterSeconds: number,
    details?: Record<string, unknown>,
  ) {
    super(code, message, details);
    this.name = 'RetryLaterError';
  }
}

export function notFound(code: ErrorCode = 'NOT_FOUND', message = 'Not found'): AppError {
  return new AppError(code, message);
}

/** Turns a zod failure into VALIDATION_ERROR with the failing fields in details. */
export function validationError(error: z.ZodError, where: 'body' | 'query' | 'params' | 'headers' = 'body'): AppError {
  return new AppError('VALIDATION_ERROR', `Invalid request ${where}`, {
    fields: error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  });
}

export function parseOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  where: 'body' | 'query' | 'params' | 'headers' = 'body',
): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, where);
  return result.data;
}

/**
 * A body the route may go without: no body at all reads as `{}`, but a body that was sent is
 * validated as sent, so `null` or `[]` is refused rather than taken for "no options".
 */
export function parseOptionalBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.infer<Schema> {
  return parseOrThrow(schema, body === undefined ? {} : body);
}

/** 400 VALIDATION_ERROR naming the first field of a body or query that holds text PostgreSQL cannot store. */
export function refuseUnsafeText(value: unknown, where: 'body' | 'query'): void {
  const unsafe = findUnsafeText(value);
  if (!unsafe) return;
  const path = unsafe.path === '' ? where : unsafe.path;
  throw new AppError('VALIDATION_ERROR', `Invalid request ${where}: ${path} ${unsafe.message}`, {
    fields: [{ path, message: unsafe.message }],
  });
}
