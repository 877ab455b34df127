import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';
import { z } from 'zod';

export { LosslessNumber, isLosslessNumber };

/**
 * Parses JSON without ever turning a number token into a float: every number stays a
 * LosslessNumber holding its exact text, so `100.10` reaches the domain as "100.10".
 */
export function parseJsonLossless(text: string): unknown {
  return parse(text);
}

/** Serializes values that may hold LosslessNumbers back to JSON text, number tokens unchanged. */
export function stringifyLossless(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new Error('value is not serializable to JSON');
  return text;
}

/**
 * An amount as a client may send it: a JSON number (its exact token text) or a decimal string.
 * The currency check comes later, where the currency is known.
 */
export const amountInputSchema = z.union([
  z.string(),
  z
    .custom<LosslessNumber>((value) => isLosslessNumber(value), 'must be a number or a decimal string')
    .transform((value) => value.toString()),
]);

/** An integer field of a losslessly parsed body (or a plain number in tests and internal calls). */
export function integerInputSchema(bounds: { min: number; max: number }) {
  return z
    .union([
      z.number(),
      z.custom<LosslessNumber>((value) => isLosslessNumber(value), 'must be an integer').transform((value) => Number(value.toString())),
    ])
    .pipe(z.number().int().min(bounds.min).max(bounds.max));
}
