import { Button } from '@mantine/core';
import type { RouteContract } from '@wallet/contracts';
import { usePrincipal } from '../app/principal';
import { canCall } from '../auth/scopes';

/**
 * "Export CSV" for a list: a plain link to the list's export with the filters on screen, so the
 * browser downloads the gateway's stream straight to disk, never holding the rows in the page.
 * Shown only to a role whose scopes read the list.
 */
export function ExportLink({ route, filters }: { route: RouteContract; filters: Record<string, string | undefined> }) {
  const { scopes } = usePrincipal();
  if (!canCall(scopes, route)) return null;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined) query.set(name, value);
  const search = query.toString();
  return (
    <Button component="a" href={search ? `${route.path}?${search}` : route.path} download variant="default" size="xs">
      Export CSV
    </Button>
  );
}
