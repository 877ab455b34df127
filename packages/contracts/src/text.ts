import { z } from 'zod';

/**
 * Text the system cannot carry: PostgreSQL refuses U+0000 in text and jsonb alike, and a lone
 * surrogate (half of a UTF-16 pair, no character at all) cannot be written as UTF-8, so it fails
 * wherever it is encoded (a URL, a hash) or turns silently into U+FFFD. Every request's body and
 * query are searched once, where they are read, and refused with the field named.
 */
const NUL = '\u0000';
/** Half of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isUnsafe(text: string): boolean {
  return text.includes(NUL) || LONE_SURROGATE.test(text);
}

export interface UnsafeText {
  /** Dotted path of the field (`lines.2.narration`), empty for the whole value; a key holding a NUL names its parent. */
  path: string;
  message: string;
}

const MESSAGE = 'must be Unicode text without NUL (U+0000) characters or lone surrogates';

interface Node {
  value: unknown;
  key: string | number | null;
  parent: Node | null;
}

function pathOf(node: Node | null): string {
  const parts: (string | number)[] = [];
  for (let at = node; at !== null && at.key !== null; at = at.parent) parts.unshift(at.key);
  return parts.join('.');
}

/**
 * The first string or key holding a NUL or a lone surrogate in a parsed JSON value (or query object), or null.
 * Iterative, with parent links instead of paths: a body nested thousands deep is walked in
 * linear time without growing the stack.
 */
export function findUnsafeText(value: unknown): UnsafeText | null {
  const pending: Node[] = [{ value, key: null, parent: null }];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const current = node.value;
    if (typeof current === 'string') {
      if (isUnsafe(current)) return { path: pathOf(node), message: MESSAGE };
    } else if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index += 1) pending.push({ value: current[index], key: index, parent: node });
    } else if (isPlainRecord(current)) {
      for (const key of Object.keys(current)) {
        if (isUnsafe(key)) return { path: pathOf(node), message: `keys ${MESSAGE}` };
        pending.push({ value: current[key], key, parent: node });
      }
    }
  }
  return null;
}

/** A plain JSON object (a query parser's may have no prototype), not a LosslessNumber. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Control characters (C0, DEL, C1) and the bidirectional embeddings, overrides and isolates
 * (U+202A-U+202E, U+2066-U+2069). Names and ids a client chooses are shown back to people (the
 * dashboard, audit trails, exports, logs) and compared by machines: a line break forges a log
 * line, an escape drives a terminal, and an override shows text in another order than it is
 * stored ("Trojan Source"). Free text (a reason, a description) is not held to this.
 */
const CONTROL_OR_BIDI_CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';
/** Text without control characters or bidirectional overrides; as a pattern, it shows in the OpenAPI document. */
export const PLAIN_TEXT_PATTERN = new RegExp(`^[^${CONTROL_OR_BIDI_CLASS}]*$`);
const PLAIN_TEXT_MESSAGE = 'must not contain control characters or bidirectional overrides';

/**
 * A name, slug or id a client chooses: 1 to `max` characters of plain text (PLAIN_TEXT_PATTERN),
 * trimmed first unless `trim` is false (ids compared exactly as sent).
 */
export function plainTextSchema(max: number, options: { trim?: boolean } = {}): z.ZodString {
  const text = options.trim === false ? z.string() : z.string().trim();
  return text.min(1).max(max).regex(PLAIN_TEXT_PATTERN, PLAIN_TEXT_MESSAGE);
}
