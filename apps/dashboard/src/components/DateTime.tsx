import { formatDateTime } from '../format/date';

/** A timestamp in the viewer's time zone; the UTC instant on hover. */
export function DateTime({ value }: { value: string }) {
  const formatted = formatDateTime(value);
  return (
    <time dateTime={value} title={formatted.utc}>
      {formatted.local}
    </time>
  );
}
