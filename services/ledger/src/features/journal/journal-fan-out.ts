import type { JournalEntry, Page } from '@wallet/contracts';
import { AppError, type Db, decodeCursor, encodeCursor } from '@wallet/kit';
import { z } from 'zod';
import type { LedgerShards } from '../partitions/ledger-shards';
import type { EntryListing } from './journal-store';

/** Per shard where the next page goes on: before a seq, from the top (`*`), or nothing left (`-`). */
type Position = string | 'top' | 'done';
const SHARD_CURSOR = { seqs: z.string().regex(/^(\d{1,19}|[-*])(,(\d{1,19}|[-*])){0,1023}$/) };

function positionsOf(cursor: string | undefined, shards: number): Position[] {
  const decoded = decodeCursor(cursor, SHARD_CURSOR);
  if (!decoded) return new Array<Position>(shards).fill('top');
  const positions = decoded.seqs.split(',').map((each): Position => (each === '*' ? 'top' : each === '-' ? 'done' : each));
  if (positions.length !== shards) throw new AppError('INVALID_CURSOR', 'The cursor is not one this list issued');
  return positions;
}

function cursorOf(positions: readonly Position[]): string | null {
  if (positions.every((position) => position === 'done')) return null;
  return encodeCursor({ seqs: positions.map((position) => (position === 'top' ? '*' : position === 'done' ? '-' : position)).join(',') });
}

/** Where a shard goes on after `taken` of the entries it listed were shown. */
function nextPosition(current: Position, listing: EntryListing | null, taken: number): Position {
  if (!listing) return 'done';
  const last = listing.entries[taken - 1];
  if (taken < listing.entries.length) return last ? last.seq : current;
  return listing.continueBeforeSeq ?? 'done';
}

/**
 * A page of the journal across every shard, newest first: each shard lists its next entries
 * along its own seqs, and the page takes the newest of their heads in turn. The cursor holds
 * each shard's position, so no entry is shown twice or skipped whatever the shards' pace.
 */
export async function journalPageAcrossShards(
  shards: LedgerShards,
  options: { cursor?: string | undefined; limit: number },
  list: (db: Db, beforeSeq: string | undefined) => Promise<EntryListing>,
): Promise<Page<JournalEntry>> {
  const positions = positionsOf(options.cursor, shards.count);
  const listings = await shards.each((db, shard) => {
    const position = positions[shard] ?? 'done';
    return position === 'done' ? Promise.resolve(null) : list(db, position === 'top' ? undefined : position);
  });
  const taken = listings.map(() => 0);
  const page: JournalEntry[] = [];
  while (page.length < options.limit) {
    let newest: number | null = null;
    for (const [shard, listing] of listings.entries()) {
      const head = listing?.entries[taken[shard] ?? 0];
      const best = newest === null ? undefined : listings[newest]?.entries[taken[newest] ?? 0];
      if (head && (!best || head.createdAt > best.createdAt)) newest = shard;
    }
    if (newest === null) break;
    const { seq: _seq, ...entry } = listings[newest]?.entries[taken[newest] ?? 0] as JournalEntry & { seq: string };
    page.push(entry);
    taken[newest] = (taken[newest] ?? 0) + 1;
  }
  const next = positions.map((position, shard) => nextPosition(position, listings[shard] ?? null, taken[shard] ?? 0));
  return { data: page, nextCursor: cursorOf(next) };
}
