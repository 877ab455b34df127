import { Button, Group, Table, Text, UnstyledButton } from '@mantine/core';
import { keepPreviousData, useQuery, type QueryKey } from '@tanstack/react-query';
import {
  type ColumnDef,
  createColumnHelper,
  type PaginationState,
  rowPaginationFeature,
  type RowData,
  tableFeatures,
  useTable,
} from '@tanstack/react-table';
import { type ReactNode, useState } from 'react';
import { LIST_SORT_DEFAULT, type ListSort, type ListSortKey, type Page, parseListSort } from '@wallet/contracts';
import type { PageFetcher } from '../api/pages';
import { Empty, ErrorState, LoadingState } from './States';

/** The table features of every server-paged list: pagination only, all processing on the server. */
export const pagedFeatures = tableFeatures({ rowPaginationFeature });
export type PagedFeatures = typeof pagedFeatures;

/** Column definitions for a paged list of `Row`s (`columnsOf<Wallet>().columns([...])`). */
export function columnsOf<Row extends RowData>() {
  return createColumnHelper<PagedFeatures, Row>();
}

const NO_ROWS: never[] = [];

/** How often a page still changing on the server (`refreshWhile`) is read again. */
const REFRESH_MS = 2_000;

/**
 * Cursor paging on the server, seen by TanStack Table as manual pagination: the table's page
 * index picks a cursor from those the API has handed out so far (page 0 has none), and the page
 * count stays unknown (-1) until a page answers without a next cursor.
 */
function useCursorPages<Row>(
  queryKey: QueryKey,
  fetchPage: PageFetcher<Row>,
  pageSize: number,
  refreshWhile?: (page: Page<Row>) => boolean,
) {
  const [pagination, setPagination] = useState<PaginationState>({ pageIndex: 0, pageSize });
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[pagination.pageIndex];
  const query = useQuery({
    queryKey: [...queryKey, { cursor, pageSize }],
    queryFn: ({ signal }) => fetchPage({ cursor, limit: pageSize }, signal),
    placeholderData: keepPreviousData,
    refetchInterval: (current) => (refreshWhile && current.state.data && refreshWhile(current.state.data) ? REFRESH_MS : false),
  });
  const nextCursor = query.data?.nextCursor ?? null;
  const onPaginationChange = (updater: PaginationState | ((old: PaginationState) => PaginationState)) => {
    const next = typeof updater === 'function' ? updater(pagination) : updater;
    // Only the neighbouring pages are reachable: a page's cursor is known once the page before it answered.
    if (next.pageIndex === pagination.pageIndex + 1 && nextCursor !== null)
      setCursors((known) => [...known.slice(0, next.pageIndex), nextCursor]);
    else if (next.pageIndex > pagination.pageIndex) return;
    setPagination(next);
  };
  const pageCount = query.data && nextCursor === null && !query.isPlaceholderData ? pagination.pageIndex + 1 : -1;
  return { query, pagination, onPaginationChange, pageCount };
}

/** A sortable list's order, kept in the address with its filters: the columns that sort it, and what a click asks for. */
export interface ListOrdering<Key extends ListSortKey = ListSortKey> {
  sort: Key | `-${Key}` | undefined;
  /** The columns (by id) the server sorts the list by, and the key each sorts on. */
  keys: Partial<Record<string, Key>>;
  /** The order asked for: undefined for the default, newest first (a method: a list of fewer keys is a list of keys). */
  onSort(sort: Key | `-${Key}` | undefined): void;
}

const ORDER_WORDS: Record<ListSort, string> = {
  '-createdAt': 'newest first',
  createdAt: 'oldest first',
  '-amount': 'largest amount first',
  amount: 'smallest amount first',
};

/** The ordering of a list whose filters (its order among them) are the address's: a new order is the same filters with it. */
export function searchOrdering<Key extends ListSortKey, Filters extends { sort?: Key | `-${Key}` | undefined }>(
  filters: Filters,
  keys: Partial<Record<string, Key>>,
  apply: (next: Filters) => void,
): ListOrdering<Key> {
  return { sort: filters.sort, keys, onSort: (sort) => apply({ ...filters, sort }) };
}

/** The columns of a money list that sort it: its amount and its creation. */
export const MONEY_SORT_KEYS = { amount: 'amount', createdAt: 'createdAt' } as const;

/** A list's caption with the order it is shown in (`Transfers, newest first`). */
export function orderedCaption(noun: string, sort: ListSort | undefined): string {
  return `${noun}, ${ORDER_WORDS[sort ?? LIST_SORT_DEFAULT]}`;
}

const ARROWS = { ascending: 'M4 10l4-4 4 4', descending: 'M4 6l4 4 4-4', none: 'M5 6l3-3 3 3M5 10l3 3 3-3' } as const;

/** The order a header shows, drawn (no text: the header's own stays what it reads, and aria-sort says the order). */
function SortArrow(props: { direction: keyof typeof ARROWS }) {
  return (
    <svg aria-hidden="true" width="12" height="12" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="2">
      <path d={ARROWS[props.direction]} opacity={props.direction === 'none' ? 0.45 : 1} />
    </svg>
  );
}

/** What a sortable header says of its column's order (aria-sort), none on columns that do not sort. */
function ariaSortOf<Key extends ListSortKey>(ordering: ListOrdering<Key> | undefined, columnId: string): keyof typeof ARROWS | undefined {
  const key = ordering?.keys[columnId];
  if (key === undefined) return undefined;
  const current = parseListSort(ordering?.sort);
  if (current.key !== key) return 'none';
  return current.ascending ? 'ascending' : 'descending';
}

/** A column's header as a button: the first click sorts by it, largest or newest first, the next the other way. */
function SortHeader<Key extends ListSortKey>(props: { ordering: ListOrdering<Key>; columnId: string; sortKey: Key; children: ReactNode }) {
  const direction = ariaSortOf(props.ordering, props.columnId) ?? 'none';
  const next: Key | `-${Key}` = direction === 'descending' ? props.sortKey : `-${props.sortKey}`;
  return (
    <UnstyledButton fw={700} fz="sm" onClick={() => props.ordering.onSort(next === LIST_SORT_DEFAULT ? undefined : next)}>
      <Group gap={4} wrap="nowrap" component="span">
        {props.children}
        <SortArrow direction={direction} />
      </Group>
    </UnstyledButton>
  );
}

export interface PagedTableProps<Row extends RowData> {
  /** Names the list for assistive technology (the table's caption). */
  caption: string;
  /** Every filter belongs in the key: a new filter starts again from the first page. */
  queryKey: QueryKey;
  fetchPage: PageFetcher<Row>;
  columns: ColumnDef<PagedFeatures, Row>[];
  emptyTitle: string;
  emptyDescription?: string;
  rowId: (row: Row) => string;
  pageSize?: number;
  /** Reads the shown page again every few seconds while this holds of it (rows the server is still working on). */
  refreshWhile?: (page: Page<Row>) => boolean;
  /** For a list the server sorts: its order, and the headers that change it. */
  ordering?: ListOrdering;
}

/** A server-paged list: loading, error (with correlation id), empty, and the page with previous / next. */
export function PagedTable<Row extends RowData>(props: PagedTableProps<Row>) {
  const pageSize = props.pageSize ?? 25;
  const { query, pagination, onPaginationChange, pageCount } = useCursorPages(
    props.queryKey,
    props.fetchPage,
    pageSize,
    props.refreshWhile,
  );
  const table = useTable({
    features: pagedFeatures,
    columns: props.columns,
    data: query.data?.data ?? (NO_ROWS as Row[]),
    getRowId: props.rowId,
    manualPagination: true,
    pageCount,
    state: { pagination },
    onPaginationChange,
  });

  if (query.isPending) return <LoadingState label={`Loading ${props.caption.toLowerCase()}`} />;
  if (query.isError)
    return <ErrorState error={query.error} title={`Could not load ${props.caption.toLowerCase()}`} onRetry={() => void query.refetch()} />;
  // A page may come back empty while the list goes on (a filter tested on a bounded number of records): only its end is empty.
  const searchedOn = query.data.data.length === 0 && query.data.nextCursor !== null;
  if (query.data.data.length === 0 && pagination.pageIndex === 0 && !searchedOn)
    return <Empty title={props.emptyTitle} description={props.emptyDescription} />;

  return (
    <>
      {searchedOn && (
        <Text size="sm" c="dimmed" mb="xs">
          No match among the records searched so far. Next searches older ones.
        </Text>
      )}
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover aria-busy={query.isFetching}>
          <Table.Caption>{props.caption}</Table.Caption>
          <Table.Thead>
            {table.getHeaderGroups().map((group) => (
              <Table.Tr key={group.id}>
                {group.headers.map((header) => {
                  const sortKey = props.ordering?.keys[header.column.id];
                  const label = header.isPlaceholder ? null : <table.FlexRender header={header} />;
                  return (
                    <Table.Th key={header.id} scope="col" aria-sort={ariaSortOf(props.ordering, header.column.id)}>
                      {props.ordering && sortKey ? (
                        <SortHeader ordering={props.ordering} columnId={header.column.id} sortKey={sortKey}>
                          {label}
                        </SortHeader>
                      ) : (
                        label
                      )}
                    </Table.Th>
                  );
                })}
              </Table.Tr>
            ))}
          </Table.Thead>
          <Table.Tbody>
            {table.getRowModel().rows.map((row) => (
              <Table.Tr key={row.id}>
                {row.getAllCells().map((cell) => (
                  <Table.Td key={cell.id}>
                    <table.FlexRender cell={cell} />
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Group justify="space-between" mt="sm" component="nav" aria-label={`${props.caption} pages`}>
        <Text size="sm" c="dimmed" aria-live="polite">
          Page {pagination.pageIndex + 1}
        </Text>
        <Group gap="xs">
          <Button variant="default" size="xs" onClick={() => table.previousPage()} disabled={!table.getCanPreviousPage()}>
            Previous
          </Button>
          <Button
            variant="default"
            size="xs"
            onClick={() => table.nextPage()}
            disabled={!table.getCanNextPage() || query.isPlaceholderData}
          >
            Next
          </Button>
        </Group>
      </Group>
    </>
  );
}
