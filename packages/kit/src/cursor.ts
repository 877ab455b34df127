import { findUnsafeText } from '@wallet/contracts';
import { z } from 'zod';
import { AppError } from './errors';

const BIGINT_MAX = 9_223_372_036_854_775_807n;

/**
 * The fields a cursor is made of, each bounded as tightly as the column it positions on: a
 * cursor is client input, and one that is not a position a service could have issued (a
 * sequence past bigint, text PostgreSQL cannot hold) must be 400 INVALID_CURSOR, never a query.
 */
export const cursorFields = {
  /** A bigint sequence (bigserial columns). */
  seq: z
    .string()
    .regex(/^\d{1,19}$/)
    .refine((text) => BigInt(text) <= BIGINT_MAX),
  /** A line number within an entry. */
  lineNo: z.number().int().min(1).max(2_147_483_647),
  /** An id or other key of printable ASCII. */
  key: z.string().regex(/^[\x21-\x7e]{1,128}$/),
  timestamp: z.iso.datetime({ precision: 3 }),
};

/** Opaque cursors: base64url JSON of the sort key of the last item returned. */
export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** The one place a cursor is read: anything but a position of `shape` is 400 INVALID_CURSOR. */
export function decodeCursor<Shape extends z.ZodRawShape>(cursor: string | undefined, shape: Shape): z.infer<z.ZodObject<Shape>> | null {
  if (cursor === undefined) return null;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const parsed = z.object(shape).safeParse(decoded);
    if (parsed.success && findUnsafeText(parsed.data) === null) return parsed.data;
  } catch {
    // fall through
  }
  throw new AppError('INVALID_CURSOR', 'The cursor is not one this list issued');
}
