import { Alert, Anchor, Button, Code, EmptyState, Group, Loader, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { isApiError } from '../api/errors';
import { scopeInWords } from '../format/scopes';
import { type SearchProblem, searchProblems } from '../app/search-errors';

/** An address whose filters the screen does not take: what is wrong with each, and the way back to the whole list. */
function UnreadableFilters({ problems }: { problems: readonly SearchProblem[] }) {
  return (
    <Alert color="gray" title="The filters in this address cannot be used" role="status">
      <Stack gap="xs">
        {problems.map((problem) => (
          <Text size="sm" key={problem.field}>
            {problem.field}: {problem.message}
          </Text>
        ))}
        <Group>
          <Anchor href={window.location.pathname} size="sm">
            Show the list without filters
          </Anchor>
        </Group>
      </Stack>
    </Alert>
  );
}

/**
 * A failed request, said plainly, with what support needs to find it: the error code and the
 * correlation id of the answer (the gateway logs every request under it).
 */
export function ErrorState({ error, title = 'Something went wrong', onRetry }: { error: unknown; title?: string; onRetry?: () => void }) {
  const apiError = isApiError(error) ? error : null;
  if (apiError?.code === 'INSUFFICIENT_SCOPE') return <NotInYourRole scope={apiError.details?.requiredScope} />;
  const problems = searchProblems(error);
  if (problems) return <UnreadableFilters problems={problems} />;
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

/**
 * A read the member's role does not grant is no failure: it says so in words, not as a red
 * error with an API scope name, and who can change it.
 */
function NotInYourRole({ scope }: { scope: unknown }) {
  const what = typeof scope === 'string' ? scopeInWords(scope) : undefined;
  return (
    <Alert color="gray" title="Not part of your role" role="status">
      <Text size="sm">
        {what ? `Your role does not include ${what}.` : 'Your role does not include this.'} An org-admin can change your role on the Team
        screen.
      </Text>
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
