import { Button, Group, Table, Text } from '@mantine/core';
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
import { useState } from 'react';
import type { Page } from '@wallet/contracts';
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
                {group.headers.map((header) => (
                  <Table.Th key={header.id} scope="col">
                    {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                  </Table.Th>
                ))}
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
