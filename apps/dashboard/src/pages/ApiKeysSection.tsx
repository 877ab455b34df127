import { Badge, Button, Checkbox, Group, Radio, Select, SimpleGrid, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  type ApiKey,
  type ApiKeyWithSecret,
  apiKeyRoutes,
  type AuthMode,
  createApiKeyBodySchema,
  type Environment,
  rotateApiKeyBodySchema,
  type Scope,
  updateApiKeyBodySchema,
} from '@wallet/contracts';
import { useState } from 'react';
import type { z } from 'zod';
import { api } from '../api/browser';
import { usePrincipal } from '../app/principal';
import { grantableScopes } from '../auth/grants';
import { canCall } from '../auth/scopes';
import { scopeInWords } from '../format/scopes';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DateTime } from '../components/DateTime';
import { columnsOf, PagedTable } from '../components/PagedTable';
import { checkForm, type FieldErrors } from '../forms/schema';
import { listText, parseList } from '../forms/lists';
import { credentialLabel, restrictionLabels, type RevealedSecret, splitSecret } from '../format/api-keys';
import { SecretOnceModal } from './SecretOnceModal';
import { FormDialog } from '../components/FormDialog';

const DAY = 24 * 3600;
const EXPIRY_CHOICES = [
  { value: '', label: 'Never (until revoked)' },
  { value: String(30 * DAY), label: '30 days' },
  { value: String(90 * DAY), label: '90 days' },
  { value: String(365 * DAY), label: '1 year' },
];
const OVERLAP_CHOICES = [
  { value: '0', label: 'Stops at once' },
  { value: '3600', label: 'Works 1 more hour' },
  { value: String(DAY), label: 'Works 24 more hours' },
  { value: String(7 * DAY), label: 'Works 7 more days (the most)' },
];

/**
 * A creation or rotation: its answer's secret goes to this component's state for the one-time
 * dialog, and only the key without it is returned to the mutation (whose cache would keep it).
 */
function useSecretCall<Input>(call: (input: Input) => Promise<ApiKeyWithSecret>, onDone: () => void) {
  const queryClient = useQueryClient();
  const [revealed, setRevealed] = useState<{ keyName: string; secret: RevealedSecret } | null>(null);
  const mutation = useMutation({
    mutationFn: async (input: Input) => {
      const { apiKey, secret } = splitSecret(await call(input));
      if (secret) setRevealed({ keyName: apiKey.name, secret });
      return apiKey;
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
      onDone();
    },
  });
  return { mutation, revealed, forget: () => setRevealed(null) };
}

interface KeyFormValues {
  name: string;
  authMode: AuthMode;
  environment: Environment;
  scopes: string[];
  requireActorHeaders: boolean;
  allowedIps: string;
  expiresInSeconds: string;
}

function CreateKey() {
  const principal = usePrincipal();
  const scopes = grantableScopes(principal.scopes);
  const initial: KeyFormValues = {
    name: '',
    authMode: 'secret',
    environment: principal.environment,
    scopes: [],
    requireActorHeaders: false,
    allowedIps: '',
    expiresInSeconds: '',
  };
  const [opened, setOpened] = useState(false);
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const {
    mutation: create,
    revealed,
    forget,
  } = useSecretCall(
    (body: z.input<typeof createApiKeyBodySchema>) => api.call(apiKeyRoutes.create, { body }),
    () => setOpened(false),
  );
  const set = <Field extends keyof KeyFormValues>(field: Field, value: KeyFormValues[Field]) =>
    setValues((current) => ({ ...current, [field]: value }));
  const submit = () => {
    const body = {
      name: values.name,
      authMode: values.authMode,
      environment: values.environment,
      scopes: values.scopes as Scope[],
      restrictions: { requireActorHeaders: values.requireActorHeaders, allowedIps: parseList(values.allowedIps) },
      expiresInSeconds: values.expiresInSeconds === '' ? undefined : Number(values.expiresInSeconds),
    };
    const checked = checkForm(createApiKeyBodySchema, body);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    create.mutate(checked.value);
  };
  if (!canCall(principal.scopes, apiKeyRoutes.create)) return null;
  return (
    <>
      <Button onClick={() => (create.reset(), setValues(initial), setErrors({}), setOpened(true))}>Create API key</Button>
      <FormDialog
        title="Create an API key"
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={create.isPending}
        error={create.error}
        failure="Could not create the key"
        submitLabel="Create key"
        size="lg"
      >
        <TextInput
          label="Name"
          description="What the key is for, e.g. the system that holds it"
          required
          value={values.name}
          onChange={(event) => set('name', event.currentTarget.value)}
          error={errors.name}
          data-autofocus
        />
        <Radio.Group label="Kind" value={values.authMode} onChange={(value) => set('authMode', value as AuthMode)} error={errors.authMode}>
          <Stack gap="xs" mt="xs">
            <Radio value="secret" label="Secret key" description="Sent as a bearer token on each call" />
            <Radio
              value="hmac"
              label="HMAC-signed key"
              description="Each call is signed with a signing secret that never travels; signing is always required"
            />
          </Stack>
        </Radio.Group>
        <Radio.Group
          label="Environment"
          value={values.environment}
          onChange={(value) => set('environment', value as Environment)}
          error={errors.environment}
        >
          <Group mt="xs">
            <Radio value="test" label="test" />
            <Radio value="live" label="live" />
          </Group>
        </Radio.Group>
        <Checkbox.Group
          label="Scopes"
          description="Only scopes your role holds can be given"
          value={values.scopes}
          onChange={(value) => set('scopes', value)}
          error={errors.scopes}
        >
          <SimpleGrid cols={{ base: 1, xs: 2 }} mt="xs" spacing="xs">
            {scopes.map((scope) => (
              <Checkbox key={scope} value={scope} label={scope} description={scopeInWords(scope)} />
            ))}
          </SimpleGrid>
        </Checkbox.Group>
        <Switch
          label="Require actor headers"
          description="Every call must name the team member it acts for"
          checked={values.requireActorHeaders}
          onChange={(event) => set('requireActorHeaders', event.currentTarget.checked)}
        />
        <Textarea
          label="Allowed IP addresses"
          description="One address or CIDR block a line; empty allows any address"
          autosize
          minRows={2}
          value={values.allowedIps}
          onChange={(event) => set('allowedIps', event.currentTarget.value)}
          error={errors.restrictions}
        />
        <Select
          label="Expires"
          data={EXPIRY_CHOICES}
          value={values.expiresInSeconds}
          onChange={(value) => set('expiresInSeconds', value ?? '')}
          allowDeselect={false}
          error={errors.expiresInSeconds}
        />
      </FormDialog>
      <SecretOnceModal keyName={revealed?.keyName ?? ''} secret={revealed?.secret ?? null} onClose={forget} />
    </>
  );
}

function RotateKey({ apiKey }: { apiKey: ApiKey }) {
  const [opened, setOpened] = useState(false);
  const [overlap, setOverlap] = useState('0');
  const [problem, setProblem] = useState<string | undefined>();
  const {
    mutation: rotate,
    revealed,
    forget,
  } = useSecretCall(
    (body: { expiresInSeconds: number }) => api.call(apiKeyRoutes.rotate, { params: { id: apiKey.id }, body }),
    () => setOpened(false),
  );
  const submit = () => {
    const body = { expiresInSeconds: Number(overlap) };
    const checked = checkForm(rotateApiKeyBodySchema, body);
    if (!checked.ok) return setProblem(checked.errors.expiresInSeconds ?? checked.errors.form);
    setProblem(undefined);
    rotate.mutate(checked.value);
  };
  const secretName = apiKey.authMode === 'hmac' ? 'signing secret' : 'secret key';
  return (
    <>
      <Button
        size="xs"
        variant="default"
        onClick={() => (rotate.reset(), setOverlap('0'), setOpened(true))}
        aria-label={`Rotate ${apiKey.name}`}
      >
        Rotate
      </Button>
      <FormDialog
        title={`Rotate ${apiKey.name}`}
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={rotate.isPending}
        error={rotate.error}
        failure="Could not rotate the key"
        submitLabel="Rotate"
      >
        <Text size="sm">A new {secretName} is issued and shown once. The key keeps its id, scopes and restrictions.</Text>
        <Select
          label={`The current ${secretName}`}
          description="An overlap lets your systems switch to the new one without failed calls"
          data={OVERLAP_CHOICES}
          value={overlap}
          onChange={(value) => setOverlap(value ?? '0')}
          allowDeselect={false}
          error={problem}
          data-autofocus
        />
      </FormDialog>
      <SecretOnceModal keyName={revealed?.keyName ?? ''} secret={revealed?.secret ?? null} onClose={forget} />
    </>
  );
}

function RestrictKey({ apiKey }: { apiKey: ApiKey }) {
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [requireActorHeaders, setRequireActorHeaders] = useState(apiKey.restrictions.requireActorHeaders);
  const [allowedIps, setAllowedIps] = useState(listText(apiKey.restrictions.allowedIps));
  const [errors, setErrors] = useState<FieldErrors>({});
  const restrict = useMutation({
    mutationFn: (body: z.input<typeof updateApiKeyBodySchema>) => api.call(apiKeyRoutes.update, { params: { id: apiKey.id }, body }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
      setOpened(false);
    },
  });
  const open = () => {
    restrict.reset();
    setRequireActorHeaders(apiKey.restrictions.requireActorHeaders);
    setAllowedIps(listText(apiKey.restrictions.allowedIps));
    setErrors({});
    setOpened(true);
  };
  const submit = () => {
    const body = { restrictions: { requireActorHeaders, allowedIps: parseList(allowedIps) } };
    const checked = checkForm(updateApiKeyBodySchema, body);
    if (!checked.ok) return setErrors(checked.errors);
    setErrors({});
    restrict.mutate(checked.value);
  };
  return (
    <>
      <Button size="xs" variant="default" onClick={open} aria-label={`Restrict ${apiKey.name}`}>
        Restrict
      </Button>
      <FormDialog
        title={`Restrictions of ${apiKey.name}`}
        opened={opened}
        onClose={() => setOpened(false)}
        onSubmit={submit}
        pending={restrict.isPending}
        error={restrict.error}
        failure="Could not change the restrictions"
        submitLabel="Save restrictions"
      >
        <Switch
          label="Require request signing"
          description={
            apiKey.authMode === 'hmac'
              ? 'Always on: an HMAC-signed key authenticates only by its signature'
              : 'Needs an HMAC-signed key: create one to sign requests'
          }
          checked={apiKey.restrictions.requireRequestSigning}
          disabled
          readOnly
        />
        <Switch
          label="Require actor headers"
          description="Every call must name the team member it acts for"
          checked={requireActorHeaders}
          onChange={(event) => setRequireActorHeaders(event.currentTarget.checked)}
          data-autofocus
        />
        <Textarea
          label="Allowed IP addresses"
          description="One address or CIDR block a line; empty allows any address"
          autosize
          minRows={2}
          value={allowedIps}
          onChange={(event) => setAllowedIps(event.currentTarget.value)}
          error={errors.restrictions ?? errors.form}
        />
      </FormDialog>
    </>
  );
}

function RevokeKey({ apiKey }: { apiKey: ApiKey }) {
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const revoke = useMutation({
    mutationFn: () => api.call(apiKeyRoutes.revoke, { params: { id: apiKey.id } }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
      setOpened(false);
    },
  });
  return (
    <>
      <Button size="xs" variant="light" color="red" onClick={() => (revoke.reset(), setOpened(true))} aria-label={`Revoke ${apiKey.name}`}>
        Revoke
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={() => setOpened(false)}
        title={`Revoke ${apiKey.name}`}
        description={`Every call with ${credentialLabel(apiKey)} is refused from now on (401 API_KEY_REVOKED). This cannot be undone.`}
        confirmLabel="Revoke key"
        color="red"
        onConfirm={() => revoke.mutate()}
        pending={revoke.isPending}
        error={revoke.error}
      />
    </>
  );
}

function KeyActions({ apiKey }: { apiKey: ApiKey }) {
  const { scopes } = usePrincipal();
  if (apiKey.status !== 'active') return null;
  return (
    <Group gap="xs" wrap="nowrap">
      {canCall(scopes, apiKeyRoutes.rotate) && <RotateKey apiKey={apiKey} />}
      {canCall(scopes, apiKeyRoutes.update) && <RestrictKey apiKey={apiKey} />}
      {canCall(scopes, apiKeyRoutes.revoke) && <RevokeKey apiKey={apiKey} />}
    </Group>
  );
}

const ExpiresAt = ({ value }: { value: string | null }) => (value === null ? 'Never' : <DateTime value={value} />);

const STATUS_COLORS: Record<ApiKey['status'], string> = { active: 'green', revoked: 'red', expired: 'gray' };

const helper = columnsOf<ApiKey>();
const columns = helper.columns([
  helper.accessor('name', { header: 'Name' }),
  helper.display({
    id: 'credential',
    header: 'Credential',
    cell: (info) => (
      <Text ff="monospace" size="xs">
        {credentialLabel(info.row.original)}
      </Text>
    ),
  }),
  helper.accessor('environment', {
    header: 'Environment',
    cell: (info) => (
      <Badge color={info.getValue() === 'live' ? 'green' : 'yellow'} variant="light">
        {info.getValue()}
      </Badge>
    ),
  }),
  helper.accessor('scopes', { header: 'Scopes', cell: (info) => <Text size="xs">{info.getValue().join(', ')}</Text> }),
  helper.accessor('restrictions', {
    header: 'Restrictions',
    cell: (info) => {
      const labels = restrictionLabels(info.getValue());
      return <Text size="xs">{labels.length === 0 ? 'None' : labels.join(' · ')}</Text>;
    },
  }),
  helper.accessor('status', {
    header: 'Status',
    cell: (info) => (
      <Badge color={STATUS_COLORS[info.getValue()]} variant="light">
        {info.getValue()}
      </Badge>
    ),
  }),
  helper.accessor('createdAt', { header: 'Created', cell: (info) => <DateTime value={info.getValue()} /> }),
  helper.accessor('expiresAt', { header: 'Expires', cell: (info) => <ExpiresAt value={info.getValue()} /> }),
  helper.display({ id: 'actions', header: 'Actions', cell: (info) => <KeyActions apiKey={info.row.original} /> }),
]);

const ENVIRONMENT_CHOICES = [
  { value: '', label: 'Both' },
  { value: 'test', label: 'test' },
  { value: 'live', label: 'live' },
];

/** The tenant's API keys, without secrets: create, rotate, restrict and revoke, as the session's scopes allow. */
export function ApiKeysSection({
  environment,
  onEnvironment,
}: {
  environment: Environment | undefined;
  onEnvironment: (environment: Environment | undefined) => void;
}) {
  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <Title order={2} size="h3">
          API keys
        </Title>
        <CreateKey />
      </Group>
      <Group component="search" aria-label="Filter API keys">
        <Select
          label="Environment"
          data={ENVIRONMENT_CHOICES}
          value={environment ?? ''}
          onChange={(value) => onEnvironment(value === 'test' || value === 'live' ? value : undefined)}
          allowDeselect={false}
          w={140}
        />
      </Group>
      <PagedTable
        key={environment ?? 'both'}
        caption="API keys, newest first"
        queryKey={['api-keys', { environment }]}
        fetchPage={(page, signal) => api.call(apiKeyRoutes.list, { query: { environment, ...page }, signal })}
        columns={columns}
        rowId={(apiKey) => apiKey.id}
        emptyTitle="No API keys"
        emptyDescription="Create a key for each system that calls the API."
      />
    </Stack>
  );
}
