import { ID_PREFIXES, type IdKind } from '@wallet/contracts';

/** The kinds of record the search opens by id: each has a screen of its own. */
export const SEARCHED_ID_KINDS = [
  'wallet',
  'transfer',
  'deposit',
  'payoutCase',
  'journalEntry',
  'event',
  'webhookEndpoint',
] as const satisfies readonly IdKind[];
export type SearchedIdKind = (typeof SEARCHED_ID_KINDS)[number];

/** What a search box's text is: an id of a record kind with a screen, or text to look up as a reference, a phone or an owner. */
export type SearchQuery = { type: 'id'; kind: SearchedIdKind; id: string } | { type: 'text'; text: string };

const PREFIX_KINDS = new Map<string, SearchedIdKind>(SEARCHED_ID_KINDS.map((kind) => [`${ID_PREFIXES[kind]}_`, kind]));

/** The longest length the search takes: an id, a reference or an owner id is far shorter. */
export const SEARCH_MAX_LENGTH = 200;

/** Reads a search box's text: an id by its prefix (`tx_…`), anything else as text; blank is nothing to search. */
export function readSearch(input: string): SearchQuery | null {
  const text = input.trim();
  if (text === '') return null;
  const underscore = text.indexOf('_');
  const kind = underscore > 0 ? PREFIX_KINDS.get(text.slice(0, underscore + 1)) : undefined;
  if (kind && /^[A-Za-z0-9_]+$/.test(text)) return { type: 'id', kind, id: text };
  return { type: 'text', text };
}
