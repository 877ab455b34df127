import { CSV_EXPORTS, type CsvExport, EXPORT_ROUTES, PAGE_LIMIT_MAX, pageSchema, type RouteContract } from '@wallet/contracts';
import { csvCell, csvRows } from '@wallet/contracts/csv';
import { parseOrThrow, routeName } from '@wallet/kit';
import type { Response } from 'express';
import { z } from 'zod';
import type { LocalHandler, ReadAsCaller } from '../proxy/local-routes';
import { writeUpstreamAnswer } from '../proxy/proxy-router';
import type { UpstreamResponse, UpstreamService } from '../proxy/upstream-client';

/** A page as the export reads it: the records' fields as they came, each written to its cell. */
const rawPageSchema = pageSchema(z.record(z.string(), z.unknown()));

/** The filters of the request that the list takes, as the client wrote them; its paging is the export's. */
function listQuery(exportRoute: RouteContract, originalUrl: string): URLSearchParams {
  const given = new URL(originalUrl, 'http://gateway').searchParams;
  const filters = new URLSearchParams();
  for (const [name, value] of given) if (exportRoute.query && name in exportRoute.query.shape) filters.append(name, value);
  filters.set('limit', String(PAGE_LIMIT_MAX));
  return filters;
}

/** Writes and waits while the client's buffer is full; a client gone ends the wait too (the caller then stops). */
async function write(response: Response, text: string): Promise<void> {
  if (response.write(text)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

type RawPage = z.infer<typeof rawPageSchema>;

/** The pages of the list, one at a time (the next is asked only once this one is written), or the list's refusal. */
async function* pagesOf(
  readAsCaller: ReadAsCaller,
  service: UpstreamService,
  path: string,
  query: URLSearchParams,
): AsyncGenerator<{ page: RawPage } | { refusal: UpstreamResponse }> {
  for (;;) {
    const answer = await readAsCaller(service, `${path}?${query.toString()}`);
    if (answer.status !== 200) return yield { refusal: answer };
    const page = rawPageSchema.parse(JSON.parse(answer.body.toString('utf8')));
    yield { page };
    if (page.nextCursor === null) return;
    query.set('cursor', page.nextCursor);
  }
}

function fileName(exportRoute: RouteContract): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return `${exportRoute.path.split('/').at(-1) ?? 'export'}-${stamp}.csv`;
}

/**
 * Streams an export: the list's pages as the caller, each written as CSV rows before the next is
 * asked, so memory holds one page whatever the export's length. A refusal of the first page is
 * the answer; a failure after the first row ends the response without its last chunk, which a
 * client sees as an incomplete download, never as a complete file.
 */
function csvExportHandler(exportRoute: RouteContract, csv: CsvExport): LocalHandler {
  return async ({ request, response, readAsCaller }) => {
    if (exportRoute.query) parseOrThrow(exportRoute.query, request.query, 'query');
    const pages = pagesOf(readAsCaller, csv.list.service as UpstreamService, csv.list.path, listQuery(exportRoute, request.originalUrl));
    let started = false;
    try {
      for await (const read of pages) {
        if ('refusal' in read) {
          if (!started) return writeUpstreamAnswer(response, read.refusal); // the list's own refusal, before any CSV
          throw new Error(`the list answered ${read.refusal.status} in the middle of an export`);
        }
        if (!started) {
          response.status(200);
          response.setHeader('content-type', 'text/csv; charset=utf-8');
          response.setHeader('content-disposition', `attachment; filename="${fileName(exportRoute)}"`);
          response.setHeader('cache-control', 'no-store');
          await write(response, csvRows([csv.columns]));
          started = true;
        }
        await write(response, csvRows(read.page.data.map((record) => csv.columns.map((column) => csvCell(record[column])))));
        if (response.destroyed) return;
      }
      response.end();
    } catch (error) {
      if (!started) throw error;
      response.destroy(error instanceof Error ? error : undefined);
    }
  };
}

/** The export routes' handlers, by route name. */
export function csvExportRoutes(): Array<[string, LocalHandler]> {
  return EXPORT_ROUTES.map((route) => {
    const csv = CSV_EXPORTS.get(route.path);
    if (!csv) throw new Error(`no export is declared for ${route.path}`);
    return [routeName(route), csvExportHandler(route, csv)];
  });
}
