import { Alert, Button, Code, EmptyState, Group, Loader, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { isApiError } from '../api/errors';

/**
 * A failed request, said plainly, with what support needs to find it: the error code and the
 * correlation id of the answer (the gateway logs every request under it).
 */
export function ErrorState({ error, title = 'Something went wrong', onRetry }: { error: unknown; title?: string; onRetry?: () => void }) {
  const apiError = isApiError(error) ? error : null;
  return (
    <Alert color="red" title={title} role="alert">
      <Stack gap="xs">
        <Text size="sm">{error instanceof Error ? error.message : 'An unexpected error occurred.'}</Text>
        {apiError && (
          <Text size="sm">
            Code <Code>{apiError.code}</Code>
            {apiError.correlationId && (
              <>
                {' '}
                · Correlation id <Code>{apiError.correlationId}</Code> (quote it to support)
              </>
            )}
          </Text>
        )}
        {onRetry && (
          <Group>
            <Button variant="light" color="red" size="xs" onClick={onRetry}>
              Try again
            </Button>
          </Group>
        )}
      </Stack>
    </Alert>
  );
}

export function LoadingState({ label = 'Loading' }: { label?: string }) {
  return (
    <Group justify="center" p="xl" role="status" aria-live="polite">
      <Loader size="sm" aria-hidden />
      <Text size="sm" c="dimmed">
        {label}…
      </Text>
    </Group>
  );
}

export function Empty({ title, description, children }: { title: string; description?: string; children?: ReactNode }) {
  return (
    <EmptyState title={title} description={description} p="xl">
      {children}
    </EmptyState>
  );
}
