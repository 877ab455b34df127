import type { PayoutDestination, WithdrawalDestination } from '@wallet/contracts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** How long a case has waited, in its two largest units: "45 s", "12 min", "3 h 5 min", "2 d 4 h". */
export function formatAge(since: string, now: number): string {
  const start = Date.parse(since);
  if (Number.isNaN(start)) return since;
  const elapsed = Math.max(now - start, 0);
  if (elapsed < MINUTE_MS) return `${Math.floor(elapsed / 1000)} s`;
  if (elapsed < HOUR_MS) return `${Math.floor(elapsed / MINUTE_MS)} min`;
  if (elapsed < DAY_MS) return withRest(Math.floor(elapsed / HOUR_MS), 'h', Math.floor((elapsed % HOUR_MS) / MINUTE_MS), 'min');
  return withRest(Math.floor(elapsed / DAY_MS), 'd', Math.floor((elapsed % DAY_MS) / HOUR_MS), 'h');
}

function withRest(whole: number, unit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${whole} ${unit}` : `${whole} ${unit} ${rest} ${restUnit}`;
}

/**
 * Where a payout or withdrawal goes, in one line: the shape follows the case's method (the
 * contracts' discriminated bodies), so the fields say which it is.
 */
export function describeDestination(destination: PayoutDestination | WithdrawalDestination): string {
  if ('phoneNumber' in destination) return `Mobile money ${destination.phoneNumber} (${destination.network})`;
  if ('accountNumber' in destination) return `Bank ${destination.bankCode} ${destination.accountNumber} (${destination.accountName})`;
  return destination.location === undefined
    ? `Cash to ${destination.recipientName}`
    : `Cash to ${destination.recipientName} at ${destination.location}`;
}
