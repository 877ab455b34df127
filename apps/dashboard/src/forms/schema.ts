import type { z } from 'zod';

const FORMATS: Partial<Record<string, string>> = {
  email: 'an e-mail address',
  url: 'a web address (https://…)',
  datetime: 'a date and time (2026-03-01T09:30:00.000Z)',
  regex: 'in the expected form',
};

/**
 * Words for the problems zod describes in its own terms ("Too small: expected string to have
 * >=1 characters"). Only the defaults: a message the contracts wrote for a rule (a bank code's
 * characters, an id's prefix) takes precedence over this map, as zod gives a rule's own message
 * precedence over a parse's.
 */
export function formMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'too_small':
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? 'Required' : `At least ${issue.minimum} characters`;
      return issue.origin === 'array' ? `Choose at least ${issue.minimum}` : `At least ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'string' ? `At most ${issue.maximum} characters` : `At most ${issue.maximum}`;
    case 'invalid_type':
      return issue.input === undefined || issue.input === '' ? 'Required' : `Must be ${issue.expected === 'number' ? 'a number' : 'text'}`;
    case 'invalid_format':
      return `Must be ${FORMATS[issue.format] ?? FORMATS.regex}`;
    case 'invalid_value':
      return `Choose one of ${issue.values.map(String).join(', ')}`;
    default:
      return undefined;
  }
}

export type FieldErrors = Partial<Record<string, string>>;

export type SchemaCheck<Schema extends z.ZodType> = { ok: true; value: z.output<Schema> } | { ok: false; errors: FieldErrors };

/**
 * Checks a form's values with the contracts' schema of the request it becomes: the same rules
 * the server applies, with each field's first problem keyed by the field's name.
 */
export function checkForm<Schema extends z.ZodType>(schema: Schema, values: z.input<Schema>): SchemaCheck<Schema> {
  const result = schema.safeParse(values, { error: formMessage });
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
