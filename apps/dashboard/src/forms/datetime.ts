/**
 * `<input type="datetime-local">` speaks the viewer's local wall time (`2026-03-01T10:30`); the
 * API's bounds are ISO instants with milliseconds. These convert between the two.
 */

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** The instant of a local date-time input, as the API's timestamp; '' is no bound. Text that is no date is returned as is, for the schema to refuse. */
export function localInputToTimestamp(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const date = new Date(trimmed);
  return Number.isNaN(date.getTime()) ? trimmed : date.toISOString();
}

/** An API timestamp as a local date-time input's value (to the minute); '' when there is none. */
export function timestampToLocalInput(value: string | undefined): string {
  if (value === undefined) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
