import { isInteger, isSafeNumber, LosslessNumber, parse } from 'lossless-json';

/**
 * Parses an answer without ever turning a number token into a float. Amounts arrive as decimal
 * strings and stay so; integers a JS number holds exactly (counts, sizes) become numbers, as the
 * contracts' schemas expect; any other number token stays a LosslessNumber with its exact text,
 * so a schema wanting a number refuses it instead of the app showing a rounded value.
 */
export function parseAnswerJson(text: string): unknown {
  return parse(text, null, (token: string) => (isInteger(token) && isSafeNumber(token) ? Number(token) : new LosslessNumber(token)));
}
