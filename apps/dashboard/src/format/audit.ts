import { stringifyLossless } from '@wallet/contracts';

/** One field an audited action changed. */
export interface AuditChange {
  field: string;
  before: string;
  after: string;
}

export interface AuditDetails {
  /** From the metadata's `before` and `after`: every field either names, in order of first mention. */
  changes: AuditChange[];
  /** The rest of the metadata (the key behind an actor, the environment, counts...), by field name. */
  other: { field: string; value: string }[];
}

const ABSENT = '—';

/** A metadata value as text: strings as they are, anything else as exact JSON (numbers keep their digits). */
export function auditValueText(value: unknown): string {
  if (value === undefined) return ABSENT;
  if (typeof value === 'string') return value;
  return stringifyLossless(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `before` / `after` as fields; a value that is no object stands for the whole target. */
function fieldsOf(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  return isRecord(value) ? value : { value };
}

/** An audit event's metadata made readable: what changed, field by field, and the rest. */
export function auditDetails(metadata: Record<string, unknown>): AuditDetails {
  const { before, after, ...rest } = metadata;
  const beforeFields = fieldsOf(before);
  const afterFields = fieldsOf(after);
  const fields = [...new Set([...Object.keys(beforeFields), ...Object.keys(afterFields)])];
  return {
    changes: fields.map((field) => ({ field, before: auditValueText(beforeFields[field]), after: auditValueText(afterFields[field]) })),
    other: Object.entries(rest).map(([field, value]) => ({ field, value: auditValueText(value) })),
  };
}
