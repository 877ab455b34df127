import { Badge, Card, Group, SimpleGrid, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { type FeeRule, feeRoutes, type FeeScheduleWithRules } from '@wallet/contracts';
import type { ReactNode } from 'react';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { basisPointsAsPercent, percentText } from '../books/fees';
import { ActivityTimeline, ByWhom, type Step } from '../components/ActivityTimeline';
import { DateTime } from '../components/DateTime';
import { Money } from '../components/Money';
import { Empty, ErrorState, LoadingState } from '../components/States';
import { AddFeeRule, PublishSchedule, RemoveFeeRule } from './FeeScheduleEditing';

const routeApi = getRouteApi('/_session/fees/$scheduleId');

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <div>{children}</div>
    </Card>
  );
}

/** An optional amount of a rule: absent is an open bound. */
function Bound({ amount, currencyCode, open }: { amount: string | null; currencyCode: string; open: string }) {
  return amount === null ? (
    <Text size="sm" c="dimmed">
      {open}
    </Text>
  ) : (
    <Money amount={amount} currencyCode={currencyCode} />
  );
}

function RulesTable({ rules, removable }: { rules: FeeRule[]; removable: boolean }) {
  if (rules.length === 0) return <Empty title="No rules" description="A schedule without rules charges no fee." />;
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table striped>
        <Table.Caption>Rules: fee = flat fee + amount × percentage, kept between the minimum and maximum fee</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Transaction</Table.Th>
            <Table.Th scope="col">Currency</Table.Th>
            <Table.Th scope="col">Amounts from</Table.Th>
            <Table.Th scope="col">Amounts up to</Table.Th>
            <Table.Th scope="col">Flat fee</Table.Th>
            <Table.Th scope="col">Percentage</Table.Th>
            <Table.Th scope="col">Minimum fee</Table.Th>
            <Table.Th scope="col">Maximum fee</Table.Th>
            {removable && (
              <Table.Th scope="col">
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            )}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rules.map((rule) => (
            <Table.Tr key={rule.id}>
              <Table.Th scope="row">{rule.transactionType}</Table.Th>
              <Table.Td>{rule.currencyCode}</Table.Td>
              <Table.Td>
                <Bound amount={rule.minAmount} currencyCode={rule.currencyCode} open="any" />
              </Table.Td>
              <Table.Td>
                <Bound amount={rule.maxAmount} currencyCode={rule.currencyCode} open="any" />
              </Table.Td>
              <Table.Td>
                <Money amount={rule.flatFee} currencyCode={rule.currencyCode} />
              </Table.Td>
              <Table.Td>{percentText(rule.percentageFee)}</Table.Td>
              <Table.Td>
                <Bound amount={rule.minFee} currencyCode={rule.currencyCode} open="none" />
              </Table.Td>
              <Table.Td>
                <Bound amount={rule.maxFee} currencyCode={rule.currencyCode} open="none" />
              </Table.Td>
              {removable && (
                <Table.Td>
                  <RemoveFeeRule rule={rule} />
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** Who made the schedule and who published it, when: kept on the schedule, so every reader of fees sees it. */
function scheduleSteps(schedule: FeeScheduleWithRules): Step[] {
  const by = (memberId: string | null, at: string) =>
    memberId === null ? (
      <Text size="sm">
        <DateTime value={at} /> (by whom was not recorded then; see the audit trail)
      </Text>
    ) : (
      <ByWhom memberId={memberId} at={at} />
    );
  return [
    { title: 'Created as a draft', done: true, body: by(schedule.createdBy, schedule.createdAt) },
    schedule.publishedAt === null
      ? { title: 'Not published yet', done: false, body: <Text size="sm">A draft charges nothing and can still change.</Text> }
      : { title: 'Published', done: true, body: by(schedule.publishedBy, schedule.publishedAt) },
  ];
}

/** A draft's actions, for a role whose scopes reach them. */
function DraftActions({ schedule }: { schedule: FeeScheduleWithRules }) {
  const { scopes } = usePrincipal();
  if (schedule.status !== 'draft') return null;
  const adds = canCall(scopes, feeRoutes.addRule);
  const publishes = canCall(scopes, feeRoutes.publish);
  if (!adds && !publishes) return null;
  return (
    <Group>
      {adds && <AddFeeRule scheduleId={schedule.id} />}
      {publishes && <PublishSchedule schedule={schedule} />}
    </Group>
  );
}

export function FeeSchedulePage() {
  const { scopes } = usePrincipal();
  const { scheduleId } = routeApi.useParams();
  const schedule = useQuery({
    queryKey: ['fee-schedule', scheduleId],
    queryFn: ({ signal }) => api.call(feeRoutes.get, { params: { id: scheduleId }, signal }),
  });
  if (schedule.isPending) return <LoadingState label="Loading the fee schedule" />;
  if (schedule.isError)
    return <ErrorState error={schedule.error} title="Could not load the fee schedule" onRetry={() => void schedule.refetch()} />;
  const shown = schedule.data;
  return (
    <Stack>
      <PageTitle>{`Fee schedule ${shown.name}`}</PageTitle>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }}>
        <Fact label="Status">
          <Badge color={shown.status === 'published' ? 'green' : 'gray'} variant="light">
            {shown.status}
          </Badge>{' '}
          {shown.publishedAt && <DateTime value={shown.publishedAt} />}
        </Fact>
        <Fact label="Default">
          {shown.isDefault ? (
            <Badge color="blue">The tenant's default</Badge>
          ) : (
            <Text size="sm">{shown.defaultOnPublish && shown.status === 'draft' ? 'Becomes the default when published' : 'No'}</Text>
          )}
        </Fact>
        <Fact label="Made by">
          <Text size="sm">{shown.origin === 'system' ? 'The platform' : 'The tenant'}</Text>
        </Fact>
        <Fact label="Platform commission">
          <Text size="sm">{basisPointsAsPercent(shown.platformCommissionBps)}</Text>
        </Fact>
      </SimpleGrid>
      <DraftActions schedule={shown} />
      <Title order={2} size="h3">
        Rules
      </Title>
      <RulesTable rules={shown.rules} removable={shown.status === 'draft' && canCall(scopes, feeRoutes.removeRule)} />
      <ActivityTimeline steps={scheduleSteps(shown)} audited={{ recordId: shown.id, noun: 'schedule' }} />
    </Stack>
  );
}
