import { Anchor, Text } from '@mantine/core';
import { useRouter } from '@tanstack/react-router';
import type { MouseEvent } from 'react';

/** The journal explorer's page of an entry (its screen owns the route `/journal/$entryId`). */
export function journalEntryPath(entryId: string): string {
  return `/journal/${encodeURIComponent(entryId)}`;
}

/**
 * A ledger entry of a money movement, linked to its page in the journal explorer; `missing` says
 * why there is none yet (not posted, refused). A plain click stays in the app; a modified one
 * (new tab) is the browser's.
 */
export function JournalEntryLink({ entryId, missing = 'Not posted' }: { entryId: string | null; missing?: string }) {
  const router = useRouter();
  if (entryId === null) {
    return (
      <Text span size="sm" c="dimmed">
        {missing}
      </Text>
    );
  }
  const href = journalEntryPath(entryId);
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    router.history.push(href);
  };
  return (
    <Anchor href={href} onClick={onClick} ff="monospace" size="sm">
      {entryId}
    </Anchor>
  );
}
