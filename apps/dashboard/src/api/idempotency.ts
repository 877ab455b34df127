import { stringifyLossless } from '@wallet/contracts';
import { useRef } from 'react';
import { isApiError } from './errors';

/**
 * Idempotency keys for one kind of money-moving action on a screen. A user's action gets a new
 * key; retrying that same action (the same body, its outcome unknown) sends the same key again, so
 * the server answers the first attempt instead of moving the money twice. A changed body is a new
 * action, and so is anything after an answer the server gave.
 */
export interface ActionKeys {
  /** The key for sending `body`: the pending attempt's key when the body is the same, else a new one. */
  keyFor(body: unknown): string;
  /** After an attempt ended: the key is kept only while its outcome is unknown. */
  settle(error?: unknown): void;
}

export function createActionKeys(newKey: () => string = () => crypto.randomUUID()): ActionKeys {
  let pending: { fingerprint: string; key: string } | null = null;
  return {
    keyFor(body) {
      const fingerprint = stringifyLossless(body);
      if (pending?.fingerprint !== fingerprint) pending = { fingerprint, key: newKey() };
      return pending.key;
    },
    settle(error) {
      if (error === undefined || !outcomeUnknown(error)) pending = null;
    },
  };
}

/** No answer, or a server failure: the request may or may not have been carried out. */
function outcomeUnknown(error: unknown): boolean {
  return !isApiError(error) || error.status === 0 || error.status >= 500;
}

/** A component's action keys, kept across renders. */
export function useActionKeys(): ActionKeys {
  const keys = useRef<ActionKeys | null>(null);
  keys.current ??= createActionKeys();
  return keys.current;
}
