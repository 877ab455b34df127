import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { teamRoutes } from '@wallet/contracts';
import { api } from '../api/browser';
import { memberNameLoader } from '../api/member-names';
import { usePrincipal } from '../app/principal';
import { canCall } from '../auth/scopes';

const loadName = memberNameLoader(api);
const MEMBER_ID = /^usr_/;

/**
 * A team member a record names, by name ("You" for the signed-in member), its id kept in the
 * title for support. An id that names no member (a system actor), or a viewer whose role may not
 * read names, gets the id itself.
 */
export function MemberName({ memberId }: { memberId: string | null }) {
  const principal = usePrincipal();
  const named = memberId !== null && MEMBER_ID.test(memberId) && canCall(principal.scopes, teamRoutes.names);
  const name = useQuery({
    queryKey: ['member-name', memberId],
    queryFn: () => loadName(memberId as string),
    enabled: named && memberId !== principal.memberId,
    staleTime: 10 * 60_000,
  });
  if (memberId === null) return <Text size="sm">—</Text>;
  if (memberId === principal.memberId)
    return (
      <Text size="sm" title={memberId} component="span">
        You
      </Text>
    );
  if (name.data)
    return (
      <Text size="sm" title={memberId} component="span">
        {name.data}
      </Text>
    );
  return (
    <Text ff="monospace" size="xs" component="span">
      {memberId}
    </Text>
  );
}
