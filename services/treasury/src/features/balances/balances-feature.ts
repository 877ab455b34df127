import { type Features, type ServiceConfig, type ServiceParts, tenantScopeOf } from '@wallet/kit';
import { LedgerReads } from '@wallet/money-commands';
import { Router } from 'express';
import { z } from 'zod';
import { BalancesService } from './balances-service';

export const balancesConfigShape = {
  LEDGER_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8092'),
  /** Connecting to the ledger, its answer and its body, per read. */
  TREASURY_LEDGER_READ_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(3_000),
};

/** `GET /v1/admin/money/balances`: the gateway already required treasury:read. */
export function startBalances(parts: ServiceParts<ServiceConfig<typeof balancesConfigShape>>): Features {
  const { config, logger } = parts;
  const balances = new BalancesService(
    new LedgerReads({
      baseUrl: config.LEDGER_URL,
      internalTokenSecret: config.INTERNAL_TOKEN_SECRET,
      timeoutMs: config.TREASURY_LEDGER_READ_TIMEOUT_MS,
      logger,
    }),
  );
  const router = Router();
  router.get('/v1/admin/money/balances', async (_request, response) => {
    response.json(await balances.balances(tenantScopeOf(response)));
  });
  return { routes: (app) => app.use(router) };
}
