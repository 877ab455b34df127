import { isLosslessNumber } from 'lossless-json';
import { z } from 'zod';

/**
 * What a client sent, in JSON's words. A number arrives as a LosslessNumber (its exact text), so
 * zod's own message would name that class (minified: "received h"); every other value is named as
 * JSON names it.
 */
export function jsonKindOf(value: unknown): string {
  if (isLosslessNumber(value)) return 'number';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Makes every schema's type mismatch say what was expected and what came, as JSON kinds: no
 * internal type reaches a client. zod's configuration is the process's, so the services turn
 * this on (kit's errors), not the contracts themselves: the SDK bundles them into other people's
 * programs, whose zod messages are theirs.
 */
export function configureJsonKindMessages(): void {
  z.config({
    customError: (issue) =>
      issue.code === 'invalid_type' ? `Invalid input: expected ${issue.expected}, received ${jsonKindOf(issue.input)}` : undefined,
  });
}
