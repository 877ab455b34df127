import { Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, linkOptions, type LinkOptions, useNavigate } from '@tanstack/react-router';
import {
  depositRoutes,
  eventRoutes,
  ledgerRoutes,
  payoutRoutes,
  type RouteContract,
  transferRoutes,
  walletOwnerIdSchema,
  WALLET_OWNER_TYPES,
  walletRoutes,
  webhookEndpointRoutes,
  withdrawalRoutes,
} from '@wallet/contracts';
import { useEffect } from 'react';
import { api } from '../api/browser';
import type { CallInput, RouteOutput } from '../api/client';
import { isApiError } from '../api/errors';
import { usePrincipal } from '../app/principal';
import { readSearch, type SearchedIdKind, type SearchQuery } from '../app/search';
import { PageTitle } from '../app/Shell';
import { canCall } from '../auth/scopes';
import { DateTime } from '../components/DateTime';
import { RouterAnchor } from '../components/links';
import { Money } from '../components/Money';
import { ErrorState, LoadingState } from '../components/States';
import { StatusBadge } from '../components/StatusBadge';

const routeApi = getRouteApi('/_session/search');

/** A record the search found: what it is, and where its screen is. */
interface Hit {
  what: string;
  id: string;
  link: LinkOptions;
  amount?: { value: string; currencyCode: string };
  status?: string;
  createdAt?: string;
}

/** A record by id, or null when this tenant and environment have none of that id. */
async function orNone<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (isApiError(error) && error.status === 404) return null;
    throw error;
  }
}

interface IdLookup {
  route: RouteContract;
  find: (id: string, signal: AbortSignal) => Promise<Hit | null>;
}

/** A lookup through a route that reads one record by `{id}`: the hit is `what`, opened at `link`, with what `shown` adds of the record. */
function byId<Route extends RouteContract & { path: `${string}/{id}` }>(
  route: Route,
  what: string,
  link: (id: string) => LinkOptions,
  shown: (record: RouteOutput<Route>) => Partial<Hit> = () => ({}),
): IdLookup {
  return {
    route,
    find: async (id, signal) => {
      // The path ends in `{id}` (the type says so), which TypeScript cannot carry into CallInput of a type parameter.
      const input = { params: { id }, signal } as unknown as CallInput<Route>;
      const record = await orNone(() => api.call(route, input));
      return record === null ? null : { what, id, link: link(id), ...shown(record) };
    },
  };
}

const depositLink = (id: string) => linkOptions({ to: '/deposits/$depositId', params: { depositId: id } });

/** How each kind of id is looked up; a payout case's prefix is also a withdrawal's, so both are asked. */
const ID_LOOKUPS: Record<SearchedIdKind, IdLookup[]> = {
  wallet: [
    byId(
      walletRoutes.get,
      'Wallet',
      (id) => linkOptions({ to: '/wallets/$walletId', params: { walletId: id } }),
      (wallet) => ({ status: wallet.status }),
    ),
  ],
  transfer: [byId(transferRoutes.get, 'Transfer', (id) => linkOptions({ to: '/transfers/$transferId', params: { transferId: id } }))],
  deposit: [byId(depositRoutes.get, 'Deposit', depositLink, depositHit)],
  payoutCase: [
    byId(payoutRoutes.get, 'Payout', (id) => linkOptions({ to: '/payouts/$payoutId', params: { payoutId: id } })),
    byId(withdrawalRoutes.get, 'Withdrawal', (id) =>
      linkOptions({ to: '/treasury/withdrawals/$withdrawalId', params: { withdrawalId: id } }),
    ),
  ],
  journalEntry: [byId(ledgerRoutes.entry, 'Journal entry', (id) => linkOptions({ to: '/journal/$entryId', params: { entryId: id } }))],
  event: [byId(eventRoutes.get, 'Event', (id) => linkOptions({ to: '/developers/events/$eventId', params: { eventId: id } }))],
  webhookEndpoint: [
    byId(webhookEndpointRoutes.get, 'Webhook endpoint', (id) =>
      linkOptions({ to: '/developers/webhooks/$endpointId', params: { endpointId: id } }),
    ),
  ],
};

function depositHit(deposit: { id: string; amount: string; currencyCode: string; status: string; createdAt: string }): Hit {
  return {
    what: 'Deposit',
    id: deposit.id,
    link: depositLink(deposit.id),
    amount: { value: deposit.amount, currencyCode: deposit.currencyCode },
    status: deposit.status,
    createdAt: deposit.createdAt,
  };
}

const LOOKUP_LIMIT = 20;
const PHONE_NUMBER = /^\+?[0-9][0-9 ]{4,31}$/;

/**
 * Text that is no id: the wallets of an owner of that id (each owner type through its index), and
 * the deposits with that rail reference or from that phone number (each through its own index).
 */
function textLookups(text: string, scopes: readonly string[], signal: AbortSignal): Array<Promise<Hit[]>> {
  const lookups: Array<Promise<Hit[]>> = [];
  if (canCall(scopes, walletRoutes.list) && walletOwnerIdSchema.safeParse(text).success)
    for (const ownerType of WALLET_OWNER_TYPES)
      lookups.push(
        api.call(walletRoutes.list, { query: { ownerType, ownerId: text, limit: LOOKUP_LIMIT }, signal }).then((page) =>
          page.data.map((wallet) => ({
            what: `Wallet of ${ownerType} ${wallet.ownerId}`,
            id: wallet.id,
            link: linkOptions({ to: '/wallets/$walletId', params: { walletId: wallet.id } }),
            amount: { value: wallet.balance, currencyCode: wallet.currencyCode },
            status: wallet.status,
            createdAt: wallet.createdAt,
          })),
        ),
      );
  if (canCall(scopes, depositRoutes.list)) {
    const deposits = (query: { externalRef: string } | { phoneNumber: string }) =>
      api.call(depositRoutes.list, { query: { ...query, limit: LOOKUP_LIMIT }, signal }).then((page) => page.data.map(depositHit));
    if (text.length <= 128) lookups.push(deposits({ externalRef: text }));
    if (PHONE_NUMBER.test(text)) lookups.push(deposits({ phoneNumber: text }));
  }
  return lookups;
}

async function search(query: SearchQuery, scopes: readonly string[], signal: AbortSignal): Promise<Hit[]> {
  if (query.type === 'text') return (await Promise.all(textLookups(query.text, scopes, signal))).flat();
  const lookups = ID_LOOKUPS[query.kind].filter((lookup) => canCall(scopes, lookup.route));
  const found = await Promise.all(lookups.map((lookup) => lookup.find(query.id, signal)));
  return found.filter((hit): hit is Hit => hit !== null);
}

function HitsTable({ hits }: { hits: readonly Hit[] }) {
  return (
    <Table.ScrollContainer minWidth={600}>
      <Table>
        <Table.Caption>What the search found</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Record</Table.Th>
            <Table.Th>What</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Amount</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {hits.map((hit) => (
            <Table.Tr key={`${hit.what}:${hit.id}`}>
              <Table.Td>
                <RouterAnchor {...hit.link} ff="monospace" size="sm">
                  {hit.id}
                </RouterAnchor>
              </Table.Td>
              <Table.Td>{hit.what}</Table.Td>
              <Table.Td>{hit.status && <StatusBadge status={hit.status} />}</Table.Td>
              <Table.Td>{hit.amount && <Money amount={hit.amount.value} currencyCode={hit.amount.currencyCode} />}</Table.Td>
              <Table.Td>{hit.createdAt && <DateTime value={hit.createdAt} />}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/**
 * The global search's answer: one record found opens its screen (the address replaced, so Back
 * returns to where the search began); several are listed; none says what was looked for.
 */
export function SearchPage() {
  const { q = '' } = routeApi.useSearch();
  const { scopes } = usePrincipal();
  const navigate = useNavigate();
  const query = readSearch(q);
  const hits = useQuery({
    queryKey: ['search', q],
    queryFn: ({ signal }) => (query ? search(query, scopes, signal) : Promise.resolve([])),
  });
  const only = hits.data?.length === 1 ? hits.data[0] : undefined;
  useEffect(() => {
    if (only) void navigate({ ...only.link, replace: true });
  }, [only, navigate]);
  return (
    <Stack>
      <PageTitle>Search</PageTitle>
      {query === null && <Text>Type an id (tx_…, wl_…, dep_…, pc_…, je_…), a reference, a phone number or an owner id.</Text>}
      {hits.isPending && <LoadingState label={`Searching for ${q}`} />}
      {hits.isError && <ErrorState error={hits.error} title="The search failed" onRetry={() => void hits.refetch()} />}
      {hits.data?.length === 0 && query !== null && (
        <Text role="status">
          Nothing found for “{q}”.{' '}
          {query.type === 'id'
            ? 'No record of this id is in this environment, or your role cannot read it.'
            : 'Searched wallet owner ids, deposit references and the phone numbers deposits came from, each exactly.'}
        </Text>
      )}
      {hits.data && hits.data.length > 1 && <HitsTable hits={hits.data} />}
    </Stack>
  );
}
