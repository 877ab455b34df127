import type { z } from 'zod';

export type FieldErrors = Partial<Record<string, string>>;

export type SchemaCheck<Schema extends z.ZodType> = { ok: true; value: z.output<Schema> } | { ok: false; errors: FieldErrors };

/**
 * Checks a form's values with the contracts' schema of the request it becomes: the same rules
 * the server applies, with each field's first problem keyed by the field's name.
 */
export function checkForm<Schema extends z.ZodType>(schema: Schema, values: z.input<Schema>): SchemaCheck<Schema> {
  const result = schema.safeParse(values);
  if (result.success) return { ok: true, value: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path.length > 0 ? String(issue.path[0]) : 'form';
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}

/** An optional text input: empty means the field is left out, so the schema's default or absence applies. */
export function optionalText(value: string): string | undefined {
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}
