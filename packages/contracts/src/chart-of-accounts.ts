import type { FloatRail } from './http/treasury';
import type { Direction, JournalKind } from './messages/journal-terms';

/**
 * The chart of accounts (docs/chart-of-accounts.md, docs/decisions/money-movements.md): every account a journal line may name, how
 * its name is built, its normal side and what may take it below zero. The ledger opens accounts
 * and guards balances by it and every poster names accounts through it, so an account's rules
 * live in one place.
 */

/** Every family of accounts, in the order the account name pattern lists them. */
export const ACCOUNT_FAMILIES = [
  'wallet',
  'momoFloat',
  'bankFloat',
  'suspense',
  'feeRevenue',
  'platformCommission',
  'payoutClearing',
  'pool',
  'momoClearing',
  'bankClearing',
  'cashClearing',
] as const;
export type AccountFamily = (typeof ACCOUNT_FAMILIES)[number];

interface AccountRules {
  readonly family: AccountFamily;
  /** The side that raises the balance: DR for what the platform holds, CR for what it owes. */
  readonly normalSide: Direction;
  /** False where the ledger refuses any entry that would leave the balance below zero. */
  readonly mayGoBelowZero: boolean;
  /** Kinds refused when they would leave the balance below zero, where other kinds may. */
  readonly notBelowZeroFor: readonly JournalKind[];
  readonly why: string;
}

/** One account per tenant, environment and currency, named alike in every currency. */
export interface SingleAccount extends AccountRules {
  readonly name: string;
}

/** An account per key (an owner, a provider, a bank or a currency): `<prefix><key>`. */
export interface KeyedAccount extends AccountRules {
  readonly prefix: string;
  /** What the key is; the account exists only in its currency when it is one. */
  readonly keyIs: 'owner id' | 'provider code' | 'bank code' | 'currency';
  /** The key's characters as a regular expression source, without anchors. */
  readonly keyPattern: string;
  nameFor(key: string): string;
  /** True when `name` is of this family. */
  names(name: string): boolean;
  /** The key `name` carries; null when it is not of this family. */
  keyOf(name: string): string | null;
}

export type AccountDeclaration = SingleAccount | KeyedAccount;

const OWNER_ID = '[A-Za-z0-9._:@+-]{1,128}';
const FLOAT_CODE = '[A-Za-z0-9_-]{1,64}';
const CURRENCY = '[A-Z]{3}';

function keyed<F extends AccountFamily>(
  declaration: Omit<KeyedAccount, 'nameFor' | 'names' | 'keyOf'> & { family: F },
): KeyedAccount & { family: F } {
  const { prefix } = declaration;
  return {
    ...declaration,
    nameFor: (key) => prefix + key,
    names: (name) => name.startsWith(prefix),
    keyOf: (name) => (name.startsWith(prefix) ? name.slice(prefix.length) : null),
  };
}

export const ACCOUNTS = {
  wallet: keyed({
    family: 'wallet',
    prefix: 'wallet:',
    keyIs: 'owner id',
    keyPattern: OWNER_ID,
    normalSide: 'CR',
    mayGoBelowZero: false,
    notBelowZeroFor: [],
    why: 'What the platform owes a wallet owner; an owner spends only what the wallet holds.',
  }),
  momoFloat: keyed({
    family: 'momoFloat',
    prefix: 'momo-float:',
    keyIs: 'provider code',
    keyPattern: FLOAT_CODE,
    normalSide: 'DR',
    mayGoBelowZero: true,
    notBelowZeroFor: [],
    why: "Money held at a mobile money provider; the rail's timing can overdraw it for a while.",
  }),
  bankFloat: keyed({
    family: 'bankFloat',
    prefix: 'bank-float:',
    keyIs: 'bank code',
    keyPattern: FLOAT_CODE,
    normalSide: 'DR',
    mayGoBelowZero: true,
    notBelowZeroFor: [],
    why: "Money held at a bank; the rail's timing can overdraw it for a while.",
  }),
  suspense: {
    family: 'suspense',
    name: 'suspense',
    normalSide: 'CR',
    mayGoBelowZero: true,
    notBelowZeroFor: [],
    why: 'Holds payouts and withdrawals awaiting a decision; an operating-float hold debits it.',
  },
  feeRevenue: {
    family: 'feeRevenue',
    name: 'revenue:fees',
    normalSide: 'CR',
    mayGoBelowZero: true,
    notBelowZeroFor: ['withdrawal_hold'],
    why: 'Fees the tenant earned; a commission may be taken before the fee lands, but a tenant withdraws only what it holds.',
  },
  platformCommission: {
    family: 'platformCommission',
    name: 'platform-commission',
    normalSide: 'CR',
    mayGoBelowZero: true,
    notBelowZeroFor: [],
    why: "The platform's share of the tenant's fees; a failed payout hands it back.",
  },
  payoutClearing: {
    family: 'payoutClearing',
    name: 'payout-clearing',
    normalSide: 'CR',
    mayGoBelowZero: true,
    notBelowZeroFor: [],
    why: 'Money approved to leave, until its rail confirms; an operating-float withdrawal carries it on the asset side.',
  },
  pool: keyed({
    family: 'pool',
    prefix: 'asset:pool:',
    keyIs: 'currency',
    keyPattern: CURRENCY,
    normalSide: 'DR',
    mayGoBelowZero: true,
    notBelowZeroFor: ['withdrawal_hold'],
    why: "The tenant's operating float; the rail's timing may overdraw it, but a tenant withdraws only what it holds.",
  }),
  momoClearing: keyed({
    family: 'momoClearing',
    prefix: 'asset:momo-clearing:',
    keyIs: 'currency',
    keyPattern: CURRENCY,
    normalSide: 'DR',
    mayGoBelowZero: true,
    notBelowZeroFor: [],
    why: 'Float deposits by mobile money until the rail settles them; credited first, so below zero meanwhile.',
  }),
  bankClearing: keyed({
    family: 'bankClearing',
    prefix: 'asset:bank-clearing:',
    keyIs: 'currency',
    keyPattern: CURRENCY,
    normalSide: 'DR',
    mayGoBelowZero: true,
    notBelowZeroFor: [],
    why: 'Float deposits by bank until the rail settles them; credited first, so below zero meanwhile.',
  }),
  cashClearing: keyed({
    family: 'cashClearing',
    prefix: 'asset:cash-clearing:',
    keyIs: 'currency',
    keyPattern: CURRENCY,
    normalSide: 'DR',
    mayGoBelowZero: true,
    notBelowZeroFor: [],
    why: 'Float deposits in cash until they are banked; credited first, so below zero meanwhile.',
  }),
} as const satisfies { [F in AccountFamily]: AccountDeclaration & { family: F } };

export const ACCOUNT_DECLARATIONS: readonly AccountDeclaration[] = ACCOUNT_FAMILIES.map((family) => ACCOUNTS[family]);

/** The system accounts every tenant gets per currency and environment, in the order they are opened. */
export const SYSTEM_ACCOUNTS: readonly AccountDeclaration[] = [
  ACCOUNTS.suspense,
  ACCOUNTS.feeRevenue,
  ACCOUNTS.platformCommission,
  ACCOUNTS.payoutClearing,
  ACCOUNTS.pool,
  ACCOUNTS.momoClearing,
  ACCOUNTS.bankClearing,
  ACCOUNTS.cashClearing,
];

export function isKeyedAccount(declaration: AccountDeclaration): declaration is KeyedAccount {
  return 'prefix' in declaration;
}

/** The account of `declaration` in `currencyCode`: a currency-keyed name carries the currency. */
export function accountNameIn(declaration: AccountDeclaration, currencyCode: string): string {
  return isKeyedAccount(declaration) ? declaration.nameFor(currencyCode) : declaration.name;
}

export function systemAccountNames(currencyCode: string): string[] {
  return SYSTEM_ACCOUNTS.map((declaration) => accountNameIn(declaration, currencyCode));
}

/** The clearing account a float deposit's rail credits. */
export const RAIL_CLEARING = {
  momo: ACCOUNTS.momoClearing,
  bank: ACCOUNTS.bankClearing,
  cash: ACCOUNTS.cashClearing,
} as const satisfies Record<FloatRail, KeyedAccount>;

const SINGLE_BY_NAME: ReadonlyMap<string, SingleAccount> = new Map(
  ACCOUNT_DECLARATIONS.filter((declaration): declaration is SingleAccount => !isKeyedAccount(declaration)).map((declaration) => [
    declaration.name,
    declaration,
  ]),
);
/** Longest prefix first, so a prefix that begins another (none does today) cannot shadow it. */
const KEYED_BY_PREFIX: readonly KeyedAccount[] = ACCOUNT_DECLARATIONS.filter(isKeyedAccount).sort(
  (a, b) => b.prefix.length - a.prefix.length,
);

/**
 * The declaration `name` belongs to; undefined for a name outside the chart. Whole names first,
 * then prefixes: no allocation, as the ledger asks it on its posting path.
 */
export function accountFamilyOf(name: string): AccountDeclaration | undefined {
  const single = SINGLE_BY_NAME.get(name);
  if (single !== undefined) return single;
  for (const declaration of KEYED_BY_PREFIX) if (name.startsWith(declaration.prefix)) return declaration;
  return undefined;
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The whole names of `declaration` as a regular expression source, without anchors. */
export function accountNamePattern(declaration: AccountDeclaration): string {
  return isKeyedAccount(declaration) ? escaped(declaration.prefix) + declaration.keyPattern : escaped(declaration.name);
}

/** A whole name of the chart, key characters included. */
export const ACCOUNT_NAME_PATTERN = new RegExp(`^(${ACCOUNT_DECLARATIONS.map(accountNamePattern).join('|')})$`);

const CURRENCY_NAMED = new RegExp(
  `^(?:${ACCOUNT_DECLARATIONS.filter(isKeyedAccount)
    .filter((declaration) => declaration.keyIs === 'currency')
    .map((declaration) => escaped(declaration.prefix))
    .join('|')})(${CURRENCY})$`,
);

/** The currency an account's name carries (`asset:pool:UGX`); such an account exists only in it. */
export function currencyNamedBy(accountName: string): string | null {
  const match = CURRENCY_NAMED.exec(accountName);
  return match ? (match[1] as string) : null;
}
