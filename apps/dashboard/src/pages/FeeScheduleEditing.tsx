import { Button, Checkbox, Group, Select, SimpleGrid, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import {
  type AddFeeRuleBody,
  createTenantFeeScheduleBodySchema,
  type CreateTenantFeeScheduleBody,
  FEE_TRANSACTION_TYPES,
  type FeeRule,
  feeRoutes,
  type FeeScheduleWithRules,
} from '@wallet/contracts';
import { useState } from 'react';
import { api } from '../api/browser';
import { isApiError } from '../api/errors';
import { useActionKeys } from '../api/idempotency';
import { emptyFeeRuleForm, feeRuleBodyOf, feeRuleFormSchema, type FeeRuleFormValues } from '../books/fees';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { FormDialog } from '../components/FormDialog';
import { checkForm, type FieldErrors } from '../forms/schema';

/** Every screen showing schedules reads them again after a change: the list, the schedule, the quote. */
function useScheduleChanged() {
  const queryClient = useQueryClient();
  return (schedule: FeeScheduleWithRules) => {
    queryClient.setQueryData(['fee-schedule', schedule.id], schedule);
    void queryClient.invalidateQueries({ queryKey: ['fee-schedules'] });
    void queryClient.invalidateQueries({ queryKey: ['fee-quote'] });
  };
}

const emptyDraft = { name: '', copyRulesFrom: '', isDefault: false };

/** The schedules a draft may copy its rules from: the newest page is enough to choose among. */
function useCopySources(enabled: boolean) {
  return useQuery({
    queryKey: ['fee-schedules', 'copy-sources'],
    queryFn: ({ signal }) => api.call(feeRoutes.list, { query: { limit: 200 }, signal }),
    enabled,
  });
}

/** "New draft schedule": a name, optionally the rules of another schedule, and whether publishing makes it the default. */
export function NewDraftSchedule() {
  const navigate = useNavigate();
  const changed = useScheduleChanged();
  const keys = useActionKeys();
  const [opened, setOpened] = useState(false);
  const [values, setValues] = useState(emptyDraft);
  const [errors, setErrors] = useState<FieldErrors>({});
  const sources = useCopySources(opened);
  const create = useMutation({
    mutationFn: (body: CreateTenantFeeScheduleBody) => api.call(feeRoutes.create, { body, idempotencyKey: keys.keyFor(body) }),
    onSettled: (_answer, error) => keys.settle(error ?? undefined),
    onSuccess: (schedule) => {
      changed(schedule);
      setOpened(false);
      setValues(emptyDraft);
      void navigate({ to: '/fees/$scheduleId', params: { scheduleId: schedule.id } });
    },
  });
  const submit = () => {
    const checked = checkForm(createTenantFeeScheduleBodySchema, {
      name: values.name,
      isDefault: values.isDefault,
      ...(values.copyRulesFrom === '' ? {} : { copyRulesFrom: values.copyRulesFrom }),
    });
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    create.mutate(checked.value);
  };
  const choices = (sources.data?.data ?? []).map((schedule) => ({ value: schedule.id, label: `${schedule.name} (${schedule.status})` }));
  return (
    <>
      <Button onClick={() => (create.reset(), setOpened(true))}>New draft schedule</Button>
      <FormDialog
        title="New draft fee schedule"
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={create.isPending}
        error={create.error}
        failure="Could not create the schedule"
        submitLabel="Create draft"
      >
        <Text size="sm">A draft charges nothing: add its rules, then publish it.</Text>
        <TextInput
          label="Name"
          required
          value={values.name}
          onChange={(event) => setValues({ ...values, name: event.currentTarget.value })}
          error={errors.name}
          data-autofocus
        />
        <Select
          label="Copy the rules of"
          placeholder="No schedule: start empty"
          data={choices}
          value={values.copyRulesFrom || null}
          onChange={(value) => setValues({ ...values, copyRulesFrom: value ?? '' })}
          error={errors.copyRulesFrom ?? (sources.isError ? 'The schedules could not be loaded' : undefined)}
          clearable
          searchable
        />
        <Checkbox
          label="Make it the default when published"
          checked={values.isDefault}
          onChange={(event) => setValues({ ...values, isDefault: event.currentTarget.checked })}
        />
      </FormDialog>
    </>
  );
}

function RuleFields({
  values,
  errors,
  set,
}: {
  values: FeeRuleFormValues;
  errors: FieldErrors;
  set: (field: keyof FeeRuleFormValues, value: string) => void;
}) {
  const text = (field: keyof FeeRuleFormValues, label: string, description?: string) => (
    <TextInput
      label={label}
      description={description}
      inputMode="decimal"
      value={values[field]}
      onChange={(event) => set(field, event.currentTarget.value)}
      error={errors[field]}
    />
  );
  return (
    <SimpleGrid cols={{ base: 1, xs: 2 }}>
      <Select
        label="Transaction"
        required
        data={[...FEE_TRANSACTION_TYPES]}
        value={values.transactionType}
        onChange={(value) => set('transactionType', value ?? 'transfer')}
        allowDeselect={false}
        error={errors.transactionType}
      />
      <TextInput
        label="Currency"
        placeholder="KES"
        required
        value={values.currencyCode}
        onChange={(event) => set('currencyCode', event.currentTarget.value)}
        error={errors.currencyCode}
        data-autofocus
      />
      {text('minAmount', 'Amounts from', 'Empty: no lower bound')}
      {text('maxAmount', 'Amounts up to', 'Empty: no upper bound')}
      {text('flatFee', 'Flat fee', 'Empty: 0')}
      {text('percentageFee', 'Percentage', '1.5 is 1.5 %; empty: 0')}
      {text('minFee', 'Minimum fee', 'Empty: none')}
      {text('maxFee', 'Maximum fee', 'Empty: none')}
    </SimpleGrid>
  );
}

/** "Add rule" on a draft: the band and terms as typed text, checked by the add-rule schema before sending. */
export function AddFeeRule({ scheduleId }: { scheduleId: string }) {
  const queryClient = useQueryClient();
  const keys = useActionKeys();
  const [opened, setOpened] = useState(false);
  const [values, setValues] = useState(emptyFeeRuleForm);
  const [errors, setErrors] = useState<FieldErrors>({});
  const add = useMutation({
    mutationFn: (body: AddFeeRuleBody) =>
      api.call(feeRoutes.addRule, { params: { id: scheduleId }, body, idempotencyKey: keys.keyFor(body) }),
    onSettled: (_answer, error) => keys.settle(error ?? undefined),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['fee-schedule', scheduleId] });
      setOpened(false);
      setValues(emptyFeeRuleForm);
    },
  });
  const submit = () => {
    const checked = checkForm(feeRuleFormSchema, feeRuleBodyOf(values));
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    add.mutate(checked.value);
  };
  return (
    <>
      <Button onClick={() => (add.reset(), setOpened(true))}>Add rule</Button>
      <FormDialog
        title="Add a fee rule"
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={add.isPending}
        error={add.error}
        failure={isApiError(add.error, 'OVERLAPPING_FEE_RULE') ? 'The band overlaps a rule of this schedule' : 'Could not add the rule'}
        submitLabel="Add rule"
        size="lg"
      >
        <Text size="sm">fee = flat fee + amount × percentage, kept between the minimum and maximum fee. Bands include both ends.</Text>
        <RuleFields values={values} errors={errors} set={(field, value) => setValues((current) => ({ ...current, [field]: value }))} />
      </FormDialog>
    </>
  );
}

/** "Remove" on a draft's rule, asked once: a removed rule is gone from the draft (its terms stay in the audit trail). */
export function RemoveFeeRule({ rule }: { rule: FeeRule }) {
  const changed = useScheduleChanged();
  const [opened, setOpened] = useState(false);
  const remove = useMutation({
    mutationFn: () => api.call(feeRoutes.removeRule, { params: { id: rule.scheduleId, ruleId: rule.id } }),
    onSuccess: (schedule) => {
      changed(schedule);
      setOpened(false);
    },
  });
  const band = `${rule.minAmount ?? 'any'} to ${rule.maxAmount ?? 'any'} ${rule.currencyCode}`;
  return (
    <>
      <Button
        size="xs"
        variant="default"
        color="red"
        onClick={() => (remove.reset(), setOpened(true))}
        aria-label={`Remove the ${rule.transactionType} rule for ${band}`}
      >
        Remove
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={() => setOpened(false)}
        title="Remove this rule?"
        description={`The ${rule.transactionType} rule for amounts from ${band} leaves the draft; its band is free for another rule.`}
        confirmLabel="Remove rule"
        color="red"
        onConfirm={() => remove.mutate()}
        pending={remove.isPending}
        error={remove.error}
      />
    </>
  );
}

/** "Publish", asked once and saying what it means: no change afterwards, and the default from now on when chosen. */
export function PublishSchedule({ schedule }: { schedule: FeeScheduleWithRules }) {
  const changed = useScheduleChanged();
  const [opened, setOpened] = useState(false);
  const [makeDefault, setMakeDefault] = useState(schedule.defaultOnPublish);
  const publish = useMutation({
    mutationFn: () => api.call(feeRoutes.publish, { params: { id: schedule.id }, body: { makeDefault } }),
    onSuccess: (published) => {
      changed(published);
      setOpened(false);
    },
  });
  const description = (
    <>
      <Text size="sm" mb="xs">
        Once published, “{schedule.name}” can never change: no rule can be added or removed. To change its prices later, create a new draft
        that copies its rules.
      </Text>
      <Text size="sm" mb="xs">
        {schedule.rules.length === 0
          ? 'It has no rules: as the default it would charge no fee.'
          : `It has ${schedule.rules.length} rule(s).`}
      </Text>
      <Checkbox
        label="Make it the default: every transaction is charged by it from now on"
        checked={makeDefault}
        onChange={(event) => setMakeDefault(event.currentTarget.checked)}
      />
    </>
  );
  return (
    <Group>
      <Button onClick={() => (publish.reset(), setMakeDefault(schedule.defaultOnPublish), setOpened(true))}>Publish</Button>
      <ConfirmDialog
        opened={opened}
        onClose={() => setOpened(false)}
        title={`Publish ${schedule.name}?`}
        description={description}
        confirmLabel={makeDefault ? 'Publish as default' : 'Publish'}
        onConfirm={() => publish.mutate()}
        pending={publish.isPending}
        error={publish.error}
        errorTitle="Could not publish the schedule"
      />
    </Group>
  );
}
