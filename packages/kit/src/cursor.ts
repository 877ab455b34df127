import { z } from 'zod';
import { AppError } from './errors';

/** Opaque cursors: base64url JSON of the sort key of the last item returned. */
export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

export function decodeCursor<Shape extends z.ZodRawShape>(cursor: string | undefined, shape: Shape): z.infer<z.ZodObject<Shape>> | null {
  if (cursor === undefined) return null;
  try {
    const parsed = z.object(shape).safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through
  }
  throw new AppError('INVALID_CURSOR', 'The cursor is malformed');
}
