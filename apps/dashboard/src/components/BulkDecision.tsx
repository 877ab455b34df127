import { Button, Group, List, Modal, Stack, Text, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { type ApproveCaseBody, type RejectCaseBody, rejectCaseBodySchema } from '@wallet/contracts';
import { useRef, useState } from 'react';
import { ApiError } from '../api/errors';
import { type ActionKeys, createActionKeys } from '../api/idempotency';
import { usePrincipal } from '../app/principal';
import { checkForm } from '../forms/schema';

/** What a decision's answer says of its case (a payout or a withdrawal). */
interface DecidedCase {
  status: string;
  approvalsRequired: number;
  approvals: readonly unknown[];
}

/** One selected case's decision routes, as the inbox calls them. */
export interface BulkDecider {
  approve: (id: string, body: ApproveCaseBody, idempotencyKey: string) => Promise<DecidedCase>;
  reject: (id: string, body: RejectCaseBody, idempotencyKey: string) => Promise<DecidedCase>;
}

type Decision = 'approve' | 'reject';

/** What became of one case: the server's answer in words, or its refusal with its code. */
interface CaseResult {
  id: string;
  ok: boolean;
  text: string;
}

/** The decided case's own words: approved, rejected, or one approval of two recorded. */
function describeAnswer(shown: DecidedCase): string {
  return shown.status === 'pending' ? `approval ${shown.approvals.length} of ${shown.approvalsRequired} recorded` : shown.status;
}

function describeError(error: unknown): string {
  return error instanceof ApiError ? `refused: ${error.message} (${error.code})` : 'failed: no answer; try again';
}

const rejectReasonSchema = rejectCaseBodySchema.pick({ reason: true });

/**
 * Decides the given cases one by one, each under its own idempotency key: a refusal stops none of
 * the others. A case whose outcome is unknown keeps its key, so trying again cannot decide it twice.
 */
function useBulkDecisions(ids: readonly string[], decider: BulkDecider) {
  const principal = usePrincipal();
  const queryClient = useQueryClient();
  const keys = useRef(new Map<string, ActionKeys>());
  const [results, setResults] = useState<CaseResult[] | null>(null);
  const [running, setRunning] = useState(false);

  const decideOne = async (id: string, chosen: Decision, reason: string): Promise<CaseResult> => {
    const caseKeys = keys.current.get(id) ?? createActionKeys();
    keys.current.set(id, caseKeys);
    const actorId = principal.memberId;
    try {
      const answer =
        chosen === 'approve'
          ? await decider.approve(id, { actorId }, caseKeys.keyFor({ chosen, actorId }))
          : await decider.reject(id, { actorId, reason }, caseKeys.keyFor({ chosen, actorId, reason }));
      caseKeys.settle();
      return { id, ok: true, text: describeAnswer(answer) };
    } catch (error) {
      caseKeys.settle(error);
      return { id, ok: false, text: describeError(error) };
    }
  };
  const run = async (chosen: Decision, reason: string) => {
    setRunning(true);
    const done: CaseResult[] = [];
    for (const id of ids) {
      done.push(await decideOne(id, chosen, reason));
      setResults([...done]);
    }
    setRunning(false);
    void queryClient.invalidateQueries();
  };
  return { results, running, run, clear: () => setResults(null) };
}

function BulkResults({ results }: { results: readonly CaseResult[] }) {
  return (
    <List size="sm" aria-label="Results" aria-live="polite">
      {results.map((result) => (
        <List.Item key={result.id} c={result.ok ? undefined : 'red'}>
          <Text span ff="monospace" size="sm">
            {result.id}
          </Text>
          : {result.text}
        </List.Item>
      ))}
    </List>
  );
}

/**
 * Approves or rejects the selected cases, each checked by the server on its own, each result
 * listed (useBulkDecisions).
 */
export function BulkDecision({
  ids,
  noun,
  decider,
  onDone,
}: {
  ids: readonly string[];
  noun: string;
  decider: BulkDecider;
  onDone: () => void;
}) {
  const bulk = useBulkDecisions(ids, decider);
  const [decision, setDecision] = useState<Decision | null>(null);
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const start = (chosen: Decision) => {
    const checked = chosen === 'reject' ? checkForm(rejectReasonSchema, { reason }) : null;
    if (checked && !checked.ok) return setProblem(checked.errors.reason);
    setProblem(undefined);
    void bulk.run(chosen, reason);
  };
  const close = () => {
    const finished = bulk.results !== null && !bulk.running;
    setDecision(null);
    bulk.clear();
    setReason('');
    if (finished) onDone();
  };
  const verb = decision === 'approve' ? 'Approve' : 'Reject';
  return (
    <>
      <Group gap="xs">
        <Text size="sm">{`${ids.length} selected`}</Text>
        <Button size="xs" onClick={() => setDecision('approve')}>{`Approve ${ids.length} selected`}</Button>
        <Button size="xs" color="red" variant="light" onClick={() => setDecision('reject')}>{`Reject ${ids.length} selected`}</Button>
      </Group>
      <Modal
        opened={decision !== null}
        onClose={close}
        title={`${verb} ${ids.length} ${noun} cases`}
        centered
        closeOnClickOutside={!bulk.running}
      >
        <Stack>
          <Text size="sm">Each case is decided on its own, in turn; a case the server refuses is listed with its reason.</Text>
          {decision === 'reject' && bulk.results === null && (
            <Textarea label="Reason" required value={reason} onChange={(event) => setReason(event.currentTarget.value)} error={problem} />
          )}
          {bulk.results && <BulkResults results={bulk.results} />}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} disabled={bulk.running}>
              {bulk.results ? 'Done' : 'Cancel'}
            </Button>
            {bulk.results === null && decision && (
              <Button color={decision === 'reject' ? 'red' : undefined} loading={bulk.running} onClick={() => start(decision)}>
                {`${verb} ${ids.length}`}
              </Button>
            )}
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
