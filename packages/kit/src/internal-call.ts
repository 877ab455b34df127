import { randomUUID } from 'node:crypto';
import type { Environment } from '@wallet/contracts/common';
import { currentContext } from './context';
import { AppError } from './errors';
import { INTERNAL_TOKEN_HEADER, signInternalToken } from './internal-token';
import type { Logger } from './logger';

export interface InternalPeer {
  /** What errors and logs call the peer: `ledger`, `treasury`, ... */
  name: string;
  baseUrl: string;
  internalTokenSecret: string;
  /** Connecting, the answer and its body. */
  timeoutMs: number;
  logger: Logger;
  /** What the caller's client is told when the peer cannot answer; by default it names the peer. */
  unavailableMessage?: string;
}

export interface InternalCall {
  method: 'GET' | 'POST';
  pathWithQuery: string;
  /** Who the caller speaks as: a tenant's environment with scopes, or the platform (`system`). */
  claims: { surface: 'tenant' | 'system'; tenantId: string | null; environment: Environment | null; scopes: string[] };
  body?: unknown;
  /** The id the peer logs the call under; by default the current request's correlation id. */
  correlationId?: string;
  /** A 5xx is returned as an answer instead of a 503: for a caller that carries on without the peer. */
  returnServerErrors?: boolean;
}

export interface InternalAnswer {
  status: number;
  body: unknown;
}

export const SYSTEM_CALL_CLAIMS: InternalCall['claims'] = { surface: 'system', tenantId: null, environment: null, scopes: [] };

/**
 * One HTTP call to another service with a fresh internal token and the request's correlation id.
 * No answer, or a 5xx, is a 503 for the caller naming the peer: nothing is ever guessed.
 */
export async function callInternal(peer: InternalPeer, call: InternalCall): Promise<InternalAnswer> {
  const correlationId = call.correlationId ?? currentContext()?.correlationId ?? randomUUID();
  const token = signInternalToken(peer.internalTokenSecret, { ...call.claims, keyId: null, actor: null });
  try {
    const response = await fetch(`${peer.baseUrl.replace(/\/+$/, '')}${call.pathWithQuery}`, {
      method: call.method,
      headers: {
        [INTERNAL_TOKEN_HEADER]: token,
        'x-correlation-id': correlationId,
        ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
      signal: AbortSignal.timeout(peer.timeoutMs),
    });
    const text = await response.text();
    if (response.status >= 500 && !call.returnServerErrors) {
      peer.logger.warn({ status: response.status, path: call.pathWithQuery, peer: peer.name }, 'internal call failed');
      throw peerUnavailable(peer);
    }
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  } catch (error) {
    if (error instanceof AppError) throw error;
    peer.logger.warn({ err: error, path: call.pathWithQuery, peer: peer.name }, 'internal peer unreachable');
    throw peerUnavailable(peer);
  }
}

function peerUnavailable(peer: InternalPeer): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    peer.unavailableMessage ?? `The ${peer.name} service cannot be reached right now; retry shortly`,
    { dependency: peer.name },
  );
}

/** An answer the contract does not allow: a bug on one side, not something to show a client. */
export function unexpectedAnswer(peer: string, answer: InternalAnswer): Error {
  return new Error(`unexpected ${peer} answer ${answer.status}: ${JSON.stringify(answer.body)}`);
}
