export interface DateFormatOptions {
  /** BCP 47 locale; the viewer's by default. */
  locale?: string | undefined;
  /** IANA time zone; the viewer's by default. */
  timeZone?: string | undefined;
}

export interface FormattedDate {
  /** In the viewer's time zone and locale, naming the zone. */
  local: string;
  /** The same instant in UTC, unambiguous: `2026-11-23 14:05:09.120 UTC` (for a title on hover). */
  utc: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per locale and zone: making one costs far more than formatting with it, and a page shows many dates. */
function formatterOf(options: DateFormatOptions): Intl.DateTimeFormat {
  const key = `${options.locale ?? ''}|${options.timeZone ?? ''}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(options.locale, { dateStyle: 'medium', timeStyle: 'long', timeZone: options.timeZone });
    formatters.set(key, formatter);
  }
  return formatter;
}

/** An API timestamp (ISO 8601) for display; text that is no date is returned as is in both. */
export function formatDateTime(iso: string, options: DateFormatOptions = {}): FormattedDate {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return { local: iso, utc: iso };
  const local = formatterOf(options).format(date);
  const utc = `${date.toISOString().replace('T', ' ').replace('Z', '')} UTC`;
  return { local, utc };
}
