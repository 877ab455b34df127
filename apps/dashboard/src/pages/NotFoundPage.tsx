import { Stack, Text } from '@mantine/core';
import { usePrincipal } from '../app/principal';
import { PageTitle } from '../app/Shell';
import { visibleNavigation } from '../app/navigation';
import { RouterAnchor } from '../components/links';

/** An address no screen has, inside the app's frame: the navigation stays, and a way back is offered. */
export function NotFoundPage() {
  const home = visibleNavigation(usePrincipal().scopes)[0];
  return (
    <Stack gap="sm">
      <PageTitle>Page not found</PageTitle>
      <Text>No screen of the dashboard has this address. It may have been mistyped, or the link that led here is out of date.</Text>
      {home && (
        <Text>
          <RouterAnchor to={home.to}>Go to {home.label === 'Overview' ? 'the overview' : home.label}</RouterAnchor>, or pick a screen from
          the navigation.
        </Text>
      )}
    </Stack>
  );
}
