import { declareIdentityEvents, runMain, type RunningService, startService } from '@wallet/kit';
import { z } from 'zod';
import { migrations } from '../migrations';
import { auditRouter } from './features/audit/audit-router';
import { organizationsRouter } from './features/organizations/organizations-router';
import { OrganizationsService } from './features/organizations/organizations-service';
import { createInviteMailer } from './features/team/invite-mailer';
import { tenantsRouter } from './features/tenants/tenants-router';
import { TenantsService } from './features/tenants/tenants-service';

export type { RunningService };

/** An unset and an empty variable both mean "not configured". */
const emptyAsUnset = (value: unknown) => (value === '' ? undefined : value);

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  return startService(
    {
      name: 'identity',
      port: { variable: 'IDENTITY_PORT', defaultPort: 8091 },
      config: {
        /** e.g. smtp://127.0.0.1:2525; without it organizations are created but invites are not emailed. */
        SMTP_URL: z.preprocess(emptyAsUnset, z.url({ protocol: /^smtps?$/ }).optional()),
        SMTP_FROM: z.string().min(3).default('no-reply@wallet.local'),
        /** Where invite links point: the tenant dashboard's accept-invite page. */
        DASHBOARD_URL: z.preprocess(emptyAsUnset, z.url({ protocol: /^https?$/ }).default('http://localhost:3000')),
      },
      migrations,
      topology: declareIdentityEvents,
      wire: async ({ config, db, relay, logger }) => {
        const mailer = config.SMTP_URL ? createInviteMailer({ smtpUrl: config.SMTP_URL, from: config.SMTP_FROM }) : null;
        if (!mailer) logger.info('SMTP_URL is not set: organization invites will not be emailed');
        const tenants = new TenantsService({ db, relay });
        const organizations = new OrganizationsService({ db, tenants, mailer, dashboardUrl: config.DASHBOARD_URL, logger });
        return {
          routes: (app) => {
            app.use(tenantsRouter(tenants));
            app.use(organizationsRouter(organizations));
            app.use(auditRouter(db));
          },
          stop: async () => mailer?.close(),
        };
      },
    },
    env,
  );
}

if (require.main === module) runMain(() => start());
