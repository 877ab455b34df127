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

/** What a pending case has of its approvals (contracts' caseApprovalFields), and who asked for it. */
export interface ApprovableCase {
  status: string;
  requestedBy: string;
  approvalsRequired: number;
  approverRole: string | null;
  approvals: ReadonlyArray<{ actorId: string }>;
}

/** Who is looking: the signed-in member, its role, and whether its role may approve the case's type. */
export interface Checker {
  memberId: string;
  orgRole: string;
  mayApprove: boolean;
}

/**
 * Why a pending case does not wait for this checker, in words; null when it does. The server
 * decides (SELF_APPROVAL_FORBIDDEN, APPROVER_ROLE_REQUIRED, APPROVAL_ALREADY_GIVEN): this only
 * spares the checker a refusal.
 */
export function notAwaitingReason(decidable: ApprovableCase, checker: Checker): string | null {
  if (decidable.requestedBy === checker.memberId) return 'Your request: awaits an approver other than you.';
  if (decidable.approvals.some((approval) => approval.actorId === checker.memberId)) return 'You approved it: awaits a second approver.';
  if (!checker.mayApprove) return 'Awaits an approver.';
  if (decidable.approverRole && decidable.approverRole !== checker.orgRole)
    return `Awaits an approver of the ${decidable.approverRole} role.`;
  return null;
}

/** "1 of 2 approvals", for a case whose policy asks for more than one; null otherwise. */
export function approvalProgress(decidable: ApprovableCase): string | null {
  if (decidable.approvalsRequired < 2) return null;
  return `${decidable.approvals.length} of ${decidable.approvalsRequired} approvals`;
}
