import { Group, Text, Timeline, Title } from '@mantine/core';
import { auditRoutes } from '@wallet/contracts';
import type { ReactNode } from 'react';
import { usePrincipal } from '../app/principal';
import { canCall } from '../auth/scopes';
import { DateTime } from './DateTime';
import { JournalEntryLink } from './JournalEntryLink';
import { RouterAnchor } from './links';
import { MemberName } from './MemberName';

/** What a maker-checker case shows of its history: the case fields every case type has (caseDecisionFields, caseRailFields). */
export interface CaseHistory {
  id: string;
  status: string;
  requestedBy: string;
  createdAt: string;
  holdJournalEntryId: string | null;
  failureCode: string | null;
  approvalsRequired: number;
  approverRole: string | null;
  approvals: ReadonlyArray<{ actorId: string; approvedAt: string }>;
  decidedBy: string | null;
  decidedAt: string | null;
  rejectionReason: string | null;
  decisionJournalEntryId: string | null;
  railReference: string | null;
  railFailureReason: string | null;
  outcomeJournalEntryId: string | null;
}

/** One step of a record's activity: what happened (or is awaited), and its who, when, why and entry. */
export interface Step {
  title: string;
  done: boolean;
  body: ReactNode;
}

/** Who took a step, by name, and when (when it is known). */
export function ByWhom({ memberId, at }: { memberId: string; at: string | null }) {
  return (
    <Text size="sm">
      By <MemberName memberId={memberId} />
      {at && (
        <>
          , <DateTime value={at} />
        </>
      )}
    </Text>
  );
}

/** A step's journal entry, linked, or what it awaits. */
export function entry(entryId: string | null, missing: string): ReactNode {
  return (
    <Group gap={4} component="span">
      <Text span size="sm">
        Journal entry:
      </Text>
      <JournalEntryLink entryId={entryId} missing={missing} />
    </Group>
  );
}

/** What its policy asks of an undecided case's approvers, when more than one of any role. */
function awaitedApprovers(history: CaseHistory): ReactNode {
  const asked = [
    history.approvalsRequired > 1 ? `${history.approvalsRequired} different approvers` : null,
    history.approverRole ? `approvers of the ${history.approverRole} role` : null,
  ].filter((each) => each !== null);
  return asked.length === 0 ? null : <Text size="sm">Its approval policy asks for {asked.join(', ')}.</Text>;
}

/** The first of two approvals, once given: the decision's step follows it. */
function firstApprovalStep(history: CaseHistory): Step[] {
  const first = history.approvalsRequired > 1 ? history.approvals[0] : undefined;
  if (!first) return [];
  return [
    { title: `Approved (1 of ${history.approvalsRequired})`, done: true, body: <ByWhom memberId={first.actorId} at={first.approvedAt} /> },
  ];
}

function decisionStep(history: CaseHistory): Step {
  if (history.decidedBy === null) return { title: 'Awaiting a decision', done: false, body: awaitedApprovers(history) };
  const approved = history.rejectionReason === null;
  return {
    title: approved ? 'Approved' : 'Rejected',
    done: true,
    body: (
      <>
        <ByWhom memberId={history.decidedBy} at={history.decidedAt} />
        {!approved && <Text size="sm">Because: {history.rejectionReason}</Text>}
        {entry(history.decisionJournalEntryId, 'Awaiting the ledger')}
      </>
    ),
  };
}

function railStep(history: CaseHistory): Step | null {
  if (history.decidedBy === null || history.rejectionReason !== null) return null;
  if (history.railFailureReason !== null)
    return {
      title: 'The rail failed the delivery',
      done: true,
      body: (
        <>
          <Text size="sm">Because: {history.railFailureReason}</Text>
          {entry(history.outcomeJournalEntryId, 'Awaiting the ledger')}
        </>
      ),
    };
  if (history.railReference === null) return { title: 'Awaiting the rail', done: false, body: null };
  return {
    title: 'Delivered by the rail',
    done: true,
    body: (
      <>
        <Text size="sm">Rail reference {history.railReference}</Text>
        {entry(history.outcomeJournalEntryId, 'Awaiting the ledger')}
      </>
    ),
  };
}

/** The case's steps in order, each as far as it got: requested, held, decided, delivered. */
export function caseSteps(history: CaseHistory): Step[] {
  const requested: Step = {
    title: 'Requested',
    done: true,
    body: <ByWhom memberId={history.requestedBy} at={history.createdAt} />,
  };
  const held: Step =
    history.failureCode !== null
      ? { title: 'Refused by the ledger', done: true, body: <Text size="sm">The hold was refused: {history.failureCode}</Text> }
      : {
          title: history.holdJournalEntryId === null ? 'Awaiting the ledger’s hold' : 'Held by the ledger',
          done: history.holdJournalEntryId !== null,
          body: entry(history.holdJournalEntryId, 'Awaiting the ledger'),
        };
  if (history.failureCode !== null) return [requested, held];
  const rail = railStep(history);
  return [requested, held, ...firstApprovalStep(history), decisionStep(history), ...(rail ? [rail] : [])];
}

/**
 * A record's activity: its steps in order, each as far as it got, linked to its journal entries
 * with people by name; an audited record's audit trail is one link away for a role that reads it.
 */
export function ActivityTimeline({ steps, audited }: { steps: readonly Step[]; audited?: { recordId: string; noun: string } }) {
  const { scopes } = usePrincipal();
  const reached = steps.filter((step) => step.done).length - 1;
  return (
    <section aria-label="Activity">
      <Title order={2} size="h3" mb="sm">
        Activity
      </Title>
      <Timeline active={reached} bulletSize={14} lineWidth={2}>
        {steps.map((step) => (
          <Timeline.Item key={step.title} title={step.title}>
            {step.body}
          </Timeline.Item>
        ))}
      </Timeline>
      {audited && canCall(scopes, auditRoutes.list) && (
        <RouterAnchor to="/audit" search={{ targetId: audited.recordId }} size="sm" mt="sm" display="inline-block">
          The {audited.noun}&apos;s audit trail
        </RouterAnchor>
      )}
    </section>
  );
}

/** A maker-checker case's activity: requested, held, decided and why, delivered. */
export function CaseTimeline({ history, noun }: { history: CaseHistory; noun: string }) {
  return <ActivityTimeline steps={caseSteps(history)} audited={{ recordId: history.id, noun }} />;
}
