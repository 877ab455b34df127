/**
 * Text PostgreSQL cannot store: it refuses U+0000 in text and jsonb alike, so a NUL anywhere in
 * a request would reach the database only to fail there. Every request's body and query are
 * searched once, where they are read, and refused with the field named.
 */
const NUL = '\u0000';

export interface UnsafeText {
  /** Dotted path of the field (`lines.2.narration`), empty for the whole value; a key holding a NUL names its parent. */
  path: string;
  message: string;
}

const MESSAGE = 'must not contain NUL (U+0000) characters';

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
 * The first string or key holding a NUL in a parsed JSON value (or query object), or null.
 * Iterative, with parent links instead of paths: a body nested thousands deep is walked in
 * linear time without growing the stack.
 */
export function findUnsafeText(value: unknown): UnsafeText | null {
  const pending: Node[] = [{ value, key: null, parent: null }];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const current = node.value;
    if (typeof current === 'string') {
      if (current.includes(NUL)) return { path: pathOf(node), message: MESSAGE };
    } else if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index += 1) pending.push({ value: current[index], key: index, parent: node });
    } else if (isPlainRecord(current)) {
      for (const key of Object.keys(current)) {
        if (key.includes(NUL)) return { path: pathOf(node), message: `keys ${MESSAGE}` };
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
