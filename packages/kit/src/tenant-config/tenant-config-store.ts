import type { Db, Tx } from '../db';

export const TENANT_CONFIG_TABLE = 'tenants';

/** A tenant's configuration as identity's latest event said it. */
export interface TenantConfig {
  tenantId: string;
  defaultCurrency: string;
  allowedCurrencies: string[];
  /** Decimal text, in currency units: the inclusive ceiling of every money movement. */
  maxTransactionAmount: string;
}

interface TenantRow {
  id: string;
  default_currency: string;
  allowed_currencies: string[];
  max_transaction_amount: string;
}

function toConfig(row: TenantRow): TenantConfig {
  return {
    tenantId: row.id,
    defaultCurrency: row.default_currency,
    allowedCurrencies: row.allowed_currencies,
    maxTransactionAmount: row.max_transaction_amount,
  };
}

/**
 * Writes the configuration unless a newer one is stored already: events can arrive out of
 * order (a redelivery, a dead-lettered one replayed), and the later change must win.
 * `occurredAt` null stores it as older than any event (a copy read from identity directly).
 */
export async function upsertTenantConfig(db: Db | Tx, config: TenantConfig, occurredAt: string | null): Promise<void> {
  await db.raw(
    `INSERT INTO ${TENANT_CONFIG_TABLE} (id, default_currency, allowed_currencies, max_transaction_amount, config_occurred_at)
     VALUES (?, ?, ?::text[], ?::numeric, coalesce(?::timestamptz, '-infinity'))
     ON CONFLICT (id) DO UPDATE
        SET default_currency = EXCLUDED.default_currency,
            allowed_currencies = EXCLUDED.allowed_currencies,
            max_transaction_amount = EXCLUDED.max_transaction_amount,
            config_occurred_at = EXCLUDED.config_occurred_at,
            updated_at = now()
      WHERE ${TENANT_CONFIG_TABLE}.config_occurred_at <= EXCLUDED.config_occurred_at`,
    [config.tenantId, config.defaultCurrency, config.allowedCurrencies, config.maxTransactionAmount, occurredAt],
  );
}

export async function findTenantConfig(db: Db | Tx, tenantId: string): Promise<TenantConfig | null> {
  const row: TenantRow | undefined = await db(TENANT_CONFIG_TABLE)
    .where({ id: tenantId })
    .first('id', 'default_currency', 'allowed_currencies', 'max_transaction_amount');
  return row ? toConfig(row) : null;
}
