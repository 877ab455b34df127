import { performance } from 'node:perf_hooks';
import { newId } from '@wallet/contracts';
import { correlationIdOf, errorCodeOf } from '@wallet/kit';
import type { Request, Response } from 'express';
import type { Principal } from '../auth/principal';
import type { NewRequestLog } from './request-log-store';
import type { RequestLogWriter } from './request-log-writer';

/** What the proxy learns about a request while handling it, read when the answer is done. */
interface RequestLogNotes {
  principal: Principal | null;
  upstreamErrorCode: string | null;
}

/** Client-chosen texts are cut here, so one caller cannot make rows of any size. */
const MAX_TEXT = 255;
const MAX_PATH = 2048;
/** nginx's code for a client that went away before the answer was complete; no standard one exists. */
const CLIENT_CLOSED_REQUEST = 499;

function clip(text: string | undefined, max: number): string | null {
  if (!text) return null;
  return text.length > max ? text.slice(0, max) : text;
}

function notesOf(response: Response): RequestLogNotes | undefined {
  return response.locals.requestLogNotes as RequestLogNotes | undefined;
}

/** The caller once its credential checked out; without it the record names no tenant. */
export function notePrincipal(response: Response, principal: Principal): void {
  const notes = notesOf(response);
  if (notes) notes.principal = principal;
}

/**
 * A service's error answer passes through unparsed; its `error.code` is read here, only for
 * error statuses, and only when the body is the standard error body.
 */
export function noteUpstreamAnswer(
  response: Response,
  answer: { status: number; headers: ReadonlyArray<[string, string]>; body: Buffer },
): void {
  const notes = notesOf(response);
  if (!notes || answer.status < 400) return;
  const contentType = answer.headers.find(([name]) => name === 'content-type')?.[1] ?? '';
  if (!contentType.includes('json')) return;
  try {
    const parsed: unknown = JSON.parse(answer.body.toString('utf8'));
    const code = (parsed as { error?: { code?: unknown } } | null)?.error?.code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code)) notes.upstreamErrorCode = code;
  } catch {
    // Not JSON after all: the record keeps its status without a code.
  }
}

function pathOf(originalUrl: string): string {
  const questionMark = originalUrl.indexOf('?');
  return questionMark < 0 ? originalUrl : originalUrl.slice(0, questionMark);
}

/**
 * Called once a route matched: every routed request, answered by a service, by the gateway
 * or refused on the way, leaves one record when its response is done.
 */
export function requestLogRecorder(writer: RequestLogWriter): (request: Request, response: Response) => void {
  return (request: Request, response: Response) => {
    const createdAt = new Date();
    const startedAt = performance.now();
    const notes: RequestLogNotes = { principal: null, upstreamErrorCode: null };
    response.locals.requestLogNotes = notes;
    // `close` comes after `finish`, and also when the client leaves first: one event covers both.
    response.once('close', () => {
      const status = response.writableFinished || response.headersSent ? response.statusCode : CLIENT_CLOSED_REQUEST;
      const { principal } = notes;
      const log: NewRequestLog = {
        id: newId('requestLog'),
        tenantId: principal?.tenantId ?? null,
        environment: principal?.environment ?? null,
        correlationId: correlationIdOf(response),
        method: request.method,
        path: clip(pathOf(request.originalUrl), MAX_PATH) ?? '/',
        status,
        apiKeyId: principal?.keyId ?? null,
        authMode: principal?.authMode ?? null,
        requestSignatureVerified: principal?.requestSignatureVerified === true,
        idempotencyKey: clip(request.get('idempotency-key'), MAX_TEXT),
        actorType: clip(principal?.actor?.type, MAX_TEXT),
        actorId: clip(principal?.actor?.id, MAX_TEXT),
        durationMs: Math.max(0, Math.round(performance.now() - startedAt)),
        errorCode: status >= 400 ? (notes.upstreamErrorCode ?? errorCodeOf(response) ?? null) : null,
        createdAt,
      };
      writer.record(log);
    });
  };
}
