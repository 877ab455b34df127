import type { Response } from 'express';
import type { AppError } from '../errors';
import { errorBody } from '../http';
import { IDEMPOTENT_REPLAYED_HEADER } from './fingerprint';
import type { StoredResponse } from './store';

/** What express's `res.json` sends as Content-Type: a stored answer built here replays like one sent with it. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The answer `res.status(status).json(value)` would send, as bytes to store in the business
 * transaction. Sending it with sendStoredResponse (or res.json of the same value) yields the
 * same bytes. `headers` adds others that matter on replay, such as `location`.
 */
export function jsonResponse(status: number, value: unknown, headers: Record<string, string> = {}): StoredResponse {
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error('jsonResponse needs a JSON value');
  const lowerCased = Object.fromEntries(Object.entries(headers).map(([name, headerValue]) => [name.toLowerCase(), headerValue]));
  return { status, headers: { 'content-type': JSON_CONTENT_TYPE, ...lowerCased }, body: Buffer.from(text, 'utf8') };
}

/** The one error body for `error`, as the error middleware would send it, to store as a business answer. */
export function errorResponse(error: AppError, correlationId: string): StoredResponse {
  return jsonResponse(error.status, errorBody(error, correlationId));
}

/** Sends a stored answer exactly: its status, its headers and its body bytes; a replay says so. */
export function sendStoredResponse(response: Response, stored: StoredResponse, options: { replayed: boolean }): void {
  response.status(stored.status);
  for (const [name, value] of Object.entries(stored.headers)) response.setHeader(name, value);
  if (options.replayed) response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
  response.end(stored.body);
}
