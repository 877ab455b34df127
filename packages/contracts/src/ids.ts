import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { plainTextSchema } from './text';

export const ID_PREFIXES = {
  tenant: 'tn',
  apiKey: 'ak',
  user: 'usr',
  wallet: 'wl',
  deposit: 'dep',
  transfer: 'tx',
  transferReversal: 'trv',
  journalEntry: 'je',
  account: 'acc',
  payoutCase: 'pc',
  floatDeposit: 'fd',
  feeSchedule: 'fs',
  feeRule: 'fr',
  bankStatementImport: 'bsi',
  statementMatch: 'sm',
  auditEvent: 'evt',
  requestLog: 'req',
  momoProvider: 'mp',
  session: 'ses',
  command: 'cmd',
  message: 'msg',
  reconciliationRun: 'rcr',
  /** A message parked in a dead-letter queue: a digest of it, not a stored row (kit dead-letters.ts). */
  deadLetter: 'dl',
  /** A platform event (docs/events.md): `evt` names audit events already. */
  event: 'ev',
  webhookEndpoint: 'we',
  webhookDelivery: 'wd',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// Random bytes are drawn in blocks: one system call per 256 ids instead of one per id.
const RANDOM_BLOCK_BYTES = 4096;
let randomBlock = Buffer.alloc(0);
let randomOffset = 0;

function randomChunk(length: number): Buffer {
  if (randomOffset + length > randomBlock.length) {
    randomBlock = randomBytes(RANDOM_BLOCK_BYTES);
    randomOffset = 0;
  }
  const chunk = randomBlock.subarray(randomOffset, randomOffset + length);
  randomOffset += length;
  return chunk;
}

/** 26 Crockford base32 characters: 48 bits of milliseconds then 80 random bits, so ids sort by time. */
export function sortableId(nowMs: number = Date.now()): string {
  return timeChars(nowMs) + crockfordChars(randomChunk(16));
}

/** 10 characters of milliseconds, most significant first. */
function timeChars(ms: number): string {
  let time = '';
  let remaining = ms;
  for (let i = 0; i < 10; i += 1) {
    time = CROCKFORD[remaining % 32] + time;
    remaining = Math.floor(remaining / 32);
  }
  return time;
}

/** One character per byte, of its five low bits. */
function crockfordChars(bytes: Uint8Array): string {
  let chars = '';
  for (let i = 0; i < 16; i += 1) chars += CROCKFORD[(bytes[i] as number) % 32];
  return chars;
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${sortableId()}`;
}

/**
 * The same id every time for the same `seed` and time: a fact announced again (a redelivered
 * message, a repeated result) keeps its id, so whoever records it by id records it once. Sorts by
 * time as new ids do.
 */
export function derivedId(kind: IdKind, seed: string, atMs: number): string {
  return `${ID_PREFIXES[kind]}_${timeChars(atMs)}${crockfordChars(createHash('sha256').update(seed).digest())}`;
}

export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-Za-z]{1,64}$`);
}

/** A filter or field naming a resource of one kind: its prefix and id characters, else 400 without a look-up. */
export function idSchema(kind: IdKind) {
  return z.string().regex(idPattern(kind), `must be an id of the form ${ID_PREFIXES[kind]}_...`);
}

/**
 * A wallet a money body names: plain text of at most 64 characters, not the id's shape. An id of
 * another shape names no wallet, and the service answers it as it answers an unknown one.
 */
export const walletIdInputSchema = plainTextSchema(64, { trim: false });
