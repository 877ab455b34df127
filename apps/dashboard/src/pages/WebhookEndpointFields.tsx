import { Checkbox, Radio, SimpleGrid, Stack, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { WebhookEndpointWithSecret } from '@wallet/contracts';
import { useState } from 'react';
import type { EndpointFormValues } from '../forms/webhook-endpoint';
import type { FieldErrors } from '../forms/schema';
import type { RevealedSecret } from '../format/api-keys';
import { SUBSCRIBABLE_EVENT_TYPES, splitEndpointSecret } from '../format/webhooks';

/** What the webhook queries' keys start with: any change to an endpoint reads them all again. */
export const WEBHOOKS_QUERY_KEY = ['webhooks'] as const;

export function EndpointFields({
  values,
  errors,
  onChange,
}: {
  values: EndpointFormValues;
  errors: FieldErrors;
  onChange: (values: EndpointFormValues) => void;
}) {
  const set = <Field extends keyof EndpointFormValues>(field: Field, value: EndpointFormValues[Field]) =>
    onChange({ ...values, [field]: value });
  return (
    <>
      <TextInput
        label="URL"
        description="Where each event is POSTed, signed; a live endpoint needs https"
        placeholder="https://example.com/webhooks/wallet"
        required
        value={values.url}
        onChange={(event) => set('url', event.currentTarget.value)}
        error={errors.url}
        data-autofocus
      />
      <Radio.Group
        label="Events"
        value={values.subscription}
        onChange={(value) => set('subscription', value === 'chosen' ? 'chosen' : 'all')}
      >
        <Stack gap="xs" mt="xs">
          <Radio value="all" label="All events" description="Every type, those added later included" />
          <Radio value="chosen" label="Chosen types" description="A test event reaches the endpoint whatever it subscribes to" />
        </Stack>
      </Radio.Group>
      {values.subscription === 'chosen' && (
        <Checkbox.Group
          label="Event types"
          value={values.eventTypes}
          onChange={(value) => set('eventTypes', value)}
          error={errors.eventTypes}
        >
          <SimpleGrid cols={{ base: 1, xs: 2 }} mt="xs" spacing="xs">
            {SUBSCRIBABLE_EVENT_TYPES.map((type) => (
              <Checkbox key={type} value={type} label={type} />
            ))}
          </SimpleGrid>
        </Checkbox.Group>
      )}
      <Textarea
        label="Description"
        description="Optional: what receives these events"
        autosize
        minRows={1}
        value={values.description}
        onChange={(event) => set('description', event.currentTarget.value)}
        error={errors.description}
      />
    </>
  );
}

/**
 * A creation or a rotation: its answer's secret goes to this component's state for the one-time
 * dialog, and only the endpoint without it is returned to the mutation (whose cache would keep it).
 */
export function useEndpointSecretCall<Input>(call: (input: Input) => Promise<WebhookEndpointWithSecret>, onDone: () => void) {
  const queryClient = useQueryClient();
  const [revealed, setRevealed] = useState<{ url: string; secret: RevealedSecret } | null>(null);
  const mutation = useMutation({
    mutationFn: async (input: Input) => {
      const { endpoint, secret } = splitEndpointSecret(await call(input));
      setRevealed({ url: endpoint.url, secret });
      return endpoint;
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: WEBHOOKS_QUERY_KEY });
      onDone();
    },
  });
  return { mutation, revealed, forget: () => setRevealed(null) };
}
