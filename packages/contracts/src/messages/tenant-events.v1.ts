import { z } from 'zod';
import { currencyCodeSchema } from '../money';

export const tenantConfigSchema = z.object({
  defaultCurrency: currencyCodeSchema,
  allowedCurrencies: z.array(currencyCodeSchema).min(1).max(50),
  maxTransactionAmount: z.string(),
});

/** `tenant.created.v1` and `tenant.updated.v1`: the ledger provisions each allowed currency. */
export const tenantEventV1Schema = z.object({
  type: z.enum(['tenant.created.v1', 'tenant.updated.v1']),
  messageId: z.string().min(1),
  tenantId: z.string().min(1),
  name: z.string(),
  slug: z.string(),
  config: tenantConfigSchema,
  occurredAt: z.string(),
});
export type TenantEventV1 = z.infer<typeof tenantEventV1Schema>;
