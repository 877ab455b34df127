import type { Environment, WalletOwnerType, WalletStatus } from '@wallet/contracts';
import { boundedSortedList, type Db, type CreatedRange, type SortedPageFilter, type SeqRows, type Tx } from '@wallet/kit';

/** Every read and write of wallets is bounded by one tenant and one environment. */
export interface WalletScope {
  tenantId: string;
  environment: Environment;
}

export interface StoredWallet {
  seq: string;
  id: string;
  tenantId: string;
  environment: Environment;
  ownerType: WalletOwnerType;
  ownerId: string;
  currencyCode: string;
  status: WalletStatus;
  ledgerOpenedAt: Date | null;
  createdAt: Date;
}

interface WalletRow {
  seq: string;
  id: string;
  tenant_id: string;
  environment: Environment;
  owner_type: WalletOwnerType;
  owner_id: string;
  currency_code: string;
  status: WalletStatus;
  ledger_opened_at: Date | null;
  created_at: Date;
}

const COLUMNS = [
  'seq',
  'id',
  'tenant_id',
  'environment',
  'owner_type',
  'owner_id',
  'currency_code',
  'status',
  'ledger_opened_at',
  'created_at',
];

function toWallet(row: WalletRow): StoredWallet {
  return {
    seq: row.seq,
    id: row.id,
    tenantId: row.tenant_id,
    environment: row.environment,
    ownerType: row.owner_type,
    ownerId: row.owner_id,
    currencyCode: row.currency_code,
    status: row.status,
    ledgerOpenedAt: row.ledger_opened_at,
    createdAt: row.created_at,
  };
}

export interface NewWallet {
  id: string;
  ownerType: WalletOwnerType;
  ownerId: string;
  currencyCode: string;
}

/**
 * Inserts the wallet unless its owner already has one in this currency; returns null then.
 * ON CONFLICT makes concurrent creations of the same wallet wait for the first and give way.
 */
export async function insertWallet(tx: Tx, scope: WalletScope, wallet: NewWallet): Promise<StoredWallet | null> {
  const rows: WalletRow[] = await tx('wallets')
    .insert({
      id: wallet.id,
      tenant_id: scope.tenantId,
      environment: scope.environment,
      owner_type: wallet.ownerType,
      owner_id: wallet.ownerId,
      currency_code: wallet.currencyCode,
    })
    .onConflict(['tenant_id', 'environment', 'owner_type', 'owner_id', 'currency_code'])
    .ignore()
    .returning(COLUMNS);
  const row = rows[0];
  return row ? toWallet(row) : null;
}

export async function findWalletOfOwner(db: Db | Tx, scope: WalletScope, owner: Omit<NewWallet, 'id'>): Promise<StoredWallet | null> {
  const row: WalletRow | undefined = await db('wallets')
    .where({
      tenant_id: scope.tenantId,
      environment: scope.environment,
      owner_type: owner.ownerType,
      owner_id: owner.ownerId,
      currency_code: owner.currencyCode,
    })
    .first(COLUMNS);
  return row ? toWallet(row) : null;
}

export async function findWallet(db: Db | Tx, scope: WalletScope, id: string): Promise<StoredWallet | null> {
  const row: WalletRow | undefined = await db('wallets')
    .where({ tenant_id: scope.tenantId, environment: scope.environment, id })
    .first(COLUMNS);
  return row ? toWallet(row) : null;
}

/** Any tenant's wallet, for the platform operator; every tenant path goes through findWallet. */
export async function findWalletAcrossTenants(db: Db, id: string): Promise<StoredWallet | null> {
  const row: WalletRow | undefined = await db('wallets').where({ id }).first(COLUMNS);
  return row ? toWallet(row) : null;
}

/** Takes the transaction first: the row stays locked until it ends. */
export async function findWalletForUpdate(tx: Tx, scope: WalletScope, id: string): Promise<StoredWallet | null> {
  const row: WalletRow | undefined = await tx('wallets')
    .where({ tenant_id: scope.tenantId, environment: scope.environment, id })
    .forUpdate()
    .first(COLUMNS);
  return row ? toWallet(row) : null;
}

export interface WalletFilter extends SortedPageFilter, CreatedRange {
  ownerType?: WalletOwnerType | undefined;
  ownerId?: string | undefined;
  currencyCode?: string | undefined;
  status?: WalletStatus | undefined;
}

/** Newest first; returns one more row than asked so the caller knows whether a next page exists. */
/**
 * Newest first, one more row than asked when a next page exists. An owner (its type and id) is
 * found through wallets_owner_currency; a status, a currency, or half an owner is tested on a
 * bounded number of wallets (boundedSortedList): a tenant may hold millions of them.
 */
export async function listWallets(db: Db, scope: WalletScope, filter: WalletFilter): Promise<SeqRows<StoredWallet>> {
  const owner = { owner_type: filter.ownerType || undefined, owner_id: filter.ownerId || undefined };
  const wholeOwner = owner.owner_type !== undefined && owner.owner_id !== undefined;
  const tested = { currency_code: filter.currencyCode || undefined, status: filter.status || undefined };
  const { rows, stoppedAt } = await boundedSortedList<WalletRow>(
    db,
    'wallets',
    scope,
    filter,
    COLUMNS,
    wholeOwner ? { indexed: owner, tested } : { tested: { ...owner, ...tested } },
  );
  return { rows: rows.map(toWallet), stoppedAt };
}

export async function markLedgerOpened(db: Db, walletId: string): Promise<void> {
  await db('wallets').where({ id: walletId }).whereNull('ledger_opened_at').update({ ledger_opened_at: db.fn.now() });
}

export async function updateWalletStatus(tx: Tx, walletId: string, status: WalletStatus): Promise<StoredWallet> {
  const rows: WalletRow[] = await tx('wallets').where({ id: walletId }).update({ status, updated_at: tx.fn.now() }).returning(COLUMNS);
  const row = rows[0];
  if (!row) throw new Error(`wallet ${walletId} vanished while its status changed`);
  return toWallet(row);
}
