import { SearchParamError } from '@tanstack/react-router';
import type { z } from 'zod';
import { formMessage } from '../forms/schema';
import { fieldLabel } from '../format/words';

/** A filter of the address a screen cannot take, in words. */
export interface SearchProblem {
  field: string;
  message: string;
}

interface ValidationResult {
  issues?: ReadonlyArray<z.core.$ZodIssue>;
}

/**
 * The problems of an address whose filters a screen's schema refused (a hand-typed
 * `createdFrom=yesterday`), each field's first one in words; null for any other error.
 */
export function searchProblems(error: unknown): SearchProblem[] | null {
  if (!(error instanceof SearchParamError)) return null;
  const issues = (error.cause as ValidationResult | undefined)?.issues ?? [];
  const problems = new Map<string, string>();
  for (const issue of issues) {
    const field = fieldLabel(String(issue.path[0] ?? 'address'));
    if (!problems.has(field)) problems.set(field, formMessage(issue as z.core.$ZodRawIssue) ?? issue.message);
  }
  return [...problems].map(([field, message]) => ({ field, message }));
}
