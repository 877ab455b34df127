import { type Features, type ServiceConfig, type ServiceParts, tenantScopeOf } from '@wallet/kit';
import { LedgerReads } from '@wallet/money-commands';
import { Router } from 'express';
import type { peersConfigShape } from '../../peers';
import { BalancesService } from './balances-service';

/** `GET /v1/admin/money/balances`: the gateway already required treasury:read. */
export function startBalances(
  parts: ServiceParts<ServiceConfig<Pick<typeof peersConfigShape, 'LEDGER_URL' | 'TREASURY_LEDGER_READ_TIMEOUT_MS'>>>,
): Features {
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
