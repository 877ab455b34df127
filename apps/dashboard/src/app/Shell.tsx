import { AppShell, Badge, Burger, Button, Group, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Outlet, useNavigate, useRouterState } from '@tanstack/react-router';
import { type FormEvent, useEffect, useState } from 'react';
import { dashboardAuthRoutes } from '../api/auth-routes';
import { api } from '../api/browser';
import { SESSION_QUERY_KEY } from '../api/session';
import { RouterNavLink } from '../components/links';
import { visibleNavigation } from './navigation';
import { SEARCH_MAX_LENGTH } from './search';
import { usePendingTotal } from './pending';
import { usePrincipal } from './principal';

/** Re-reads the session when it is due to expire: the 401 then takes the user to the login page. */
function useSessionExpiry(expiresAt: string) {
  const queryClient = useQueryClient();
  useEffect(() => {
    // Timers fire at most ~24.8 days ahead; a session lasts far less, and a refetch on focus covers the rest.
    const delay = Math.min(Math.max(Date.parse(expiresAt) - Date.now(), 0) + 1000, 2 ** 31 - 1);
    const timer = setTimeout(() => void queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY }), delay);
    return () => clearTimeout(timer);
  }, [expiresAt, queryClient]);
}

/** The signed-in layout: header with the session, navigation by what the session's scopes allow, the screen. */
export function Shell() {
  const [opened, { toggle, close }] = useDisclosure();
  const principal = usePrincipal();
  const pathname = useRouterState({ select: (state) => state.location.pathname });
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useSessionExpiry(principal.expiresAt);
  const pending = usePendingTotal(principal.scopes);
  const logout = useMutation({
    mutationFn: () => api.call(dashboardAuthRoutes.logout, {}),
    meta: { handlesUnauthorized: true },
    onSettled: () => {
      queryClient.clear();
      void navigate({ to: '/login' });
    },
  });

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            {/* On a phone the name gives way, so the header keeps to its one line and nothing overlaps the page. */}
            <Text fw={700} component="span" visibleFrom="xs">
              Wallet dashboard
            </Text>
            <Badge color={principal.environment === 'live' ? 'green' : 'yellow'} variant="light">
              {principal.environment}
            </Badge>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" c="dimmed" visibleFrom="xs">
              {principal.orgRole}
            </Text>
            <Button variant="default" size="xs" onClick={() => logout.mutate()} loading={logout.isPending}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        <GlobalSearch onSearch={close} />
        {visibleNavigation(principal.scopes).map((item) => (
          <RouterNavLink
            key={item.to}
            to={item.to}
            label={item.label}
            variant="filled"
            active={item.to === '/' ? pathname === '/' : pathname.startsWith(item.to)}
            onClick={close}
            rightSection={item.to === '/approvals' && pending !== null ? <PendingBadge count={pending} /> : undefined}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

/** The search box atop the navigation (in the phone's menu too): any id, reference, phone number or owner id. */
function GlobalSearch({ onSearch }: { onSearch: () => void }) {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() === '') return;
    onSearch();
    void navigate({ to: '/search', search: { q: text.trim() } });
  };
  return (
    <form role="search" aria-label="Search everything" onSubmit={submit}>
      <TextInput
        aria-label="Search"
        placeholder="Id, reference, phone, owner"
        value={text}
        maxLength={SEARCH_MAX_LENGTH}
        onChange={(event) => setText(event.currentTarget.value)}
        leftSection={<span aria-hidden>⌕</span>}
        mb="xs"
      />
    </form>
  );
}

/** The cases awaiting a decision, beside the inbox's link: read as "Approvals, 3 pending". */
function PendingBadge({ count }: { count: string }) {
  return (
    <Badge size="sm" variant="filled" color="red">
      {count}
      <VisuallyHidden> pending</VisuallyHidden>
    </Badge>
  );
}

/** A screen's title: the page's one h1, and the document title. */
export function PageTitle({ children }: { children: string }) {
  useEffect(() => {
    document.title = `${children} · Wallet dashboard`;
  }, [children]);
  return (
    <Title order={1} size="h2" mb="md">
      {children}
    </Title>
  );
}
