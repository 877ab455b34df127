import { DEAD_LETTER_QUEUES, TOPOLOGY } from '@wallet/contracts';
import {
  type Channel,
  DeadLetterQueues,
  declareAuditRecords,
  declareIdentityEvents,
  declarePlatformEvents,
  idempotency,
  idempotencyRetentionRule,
  inboxRetentionRule,
  queueAndDeadLetters,
  runMain,
  type RunningService,
  startService,
  type Db,
  type Logger,
} from '@wallet/kit';
import { z } from 'zod';
import { migrations } from '../migrations';
import { apiKeyAuthRouter } from './features/api-keys/api-key-auth-router';
import { apiKeysRouter } from './features/api-keys/api-keys-router';
import { ApiKeysService } from './features/api-keys/api-keys-service';
import { SIGNING_SECRETS_COLUMN } from './features/api-keys/api-keys-store';
import { startAuditRecordsConsumer } from './features/audit/audit-records-consumer';
import { auditRouter } from './features/audit/audit-router';
import { deadLettersRouter } from './features/dead-letters/dead-letters-router';
import { DeadLettersService } from './features/dead-letters/dead-letters-service';
import { LoginLockNotices } from './features/login-throttle/login-lock-notices';
import { ReviewNotices } from './features/review-notices/review-notices';
import { checkedLoginThrottlePolicy, LoginThrottle, type LoginThrottlePolicy } from './features/login-throttle/login-throttle';
import { loginThrottlesRetentionRule } from './features/login-throttle/login-throttle-retention';
import { createMailer } from './features/mail/mailer';
import { momoProvidersRouter } from './features/momo-providers/momo-providers-router';
import { MomoProvidersService } from './features/momo-providers/momo-providers-service';
import { WEBHOOK_SECRETS_COLUMN } from './features/momo-providers/momo-providers-store';
import { organizationsRouter } from './features/organizations/organizations-router';
import { OrganizationsService } from './features/organizations/organizations-service';
import { masterKeyConfigSchema, oldMasterKeysConfigSchema } from './features/secrets/master-keys';
import type { MasterKey } from './features/secrets/master-keys';
import { openSecretBox } from './features/secrets/open-secret-box';
import type { SecretBox } from './features/secrets/secret-box';
import { reencryptSealedAnswers, sealedAnswers } from './features/secrets/sealed-answers';
import { sessionsRetentionRule } from './features/sessions/sessions-retention';
import { sessionsRouter } from './features/sessions/sessions-router';
import { SessionsService } from './features/sessions/sessions-service';
import { createInviteMailer } from './features/team/invite-mailer';
import { MemberInvites } from './features/team/member-invites';
import { teamRouter } from './features/team/team-router';
import { TeamService } from './features/team/team-service';
import { tenantsRouter } from './features/tenants/tenants-router';
import { ENDPOINT_SECRETS_COLUMN } from './features/webhooks/endpoints-store';
import { startWebhooks, webhooksConfigShape, webhooksRetentionRules } from './features/webhooks/webhooks-feature';
import { TenantsService } from './features/tenants/tenants-service';

export type { RunningService };

function loginThrottlePolicyOf(config: {
  IDENTITY_LOGIN_LOCK_AFTER_FAILURES: number;
  IDENTITY_LOGIN_LOCK_FIRST_SECONDS: number;
  IDENTITY_LOGIN_LOCK_MAX_SECONDS: number;
  IDENTITY_LOGIN_FAILURE_MEMORY_SECONDS: number;
}): LoginThrottlePolicy {
  return checkedLoginThrottlePolicy({
    lockAfterFailures: config.IDENTITY_LOGIN_LOCK_AFTER_FAILURES,
    firstLockSeconds: config.IDENTITY_LOGIN_LOCK_FIRST_SECONDS,
    maxLockSeconds: config.IDENTITY_LOGIN_LOCK_MAX_SECONDS,
    failureMemorySeconds: config.IDENTITY_LOGIN_FAILURE_MEMORY_SECONDS,
  });
}

/** How often notices to reviewers due are sent: a reviewer hears of a case within seconds. */
const REVIEW_NOTICE_INTERVAL_MS = 1_000;

/** An unset and an empty variable both mean "not configured". */
const emptyAsUnset = (value: unknown) => (value === '' ? undefined : value);

/** The variables identity reads besides the common ones. */
const identityConfigShape = {
  /** e.g. smtp://127.0.0.1:2525; without it invites are not emailed: a team invite's link goes back to the inviter. */
  SMTP_URL: z.preprocess(emptyAsUnset, z.url({ protocol: /^smtps?$/ }).optional()),
  SMTP_FROM: z.string().min(3).default('no-reply@wallet.local'),
  /** Where invite links point: the tenant dashboard's accept-invite page. */
  DASHBOARD_URL: z.preprocess(emptyAsUnset, z.url({ protocol: /^https?$/ }).default('http://localhost:8082')),
  /** How long a dashboard session lasts: 5 minutes to 30 days, default 12 hours. */
  IDENTITY_SESSION_TTL_SECONDS: z.coerce.number().int().min(300).max(2_592_000).default(43_200),
  /** How long a session's row is kept after it expired (it can no longer be used; kept a while for questions about a login). */
  IDENTITY_SESSION_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Failed logins of one login address in a row, the last of which locks it (docs/decisions/login-throttling.md). */
  IDENTITY_LOGIN_LOCK_AFTER_FAILURES: z.coerce.number().int().min(1).max(100).default(5),
  /** The first lock; each further failure doubles it, up to the maximum. */
  IDENTITY_LOGIN_LOCK_FIRST_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  IDENTITY_LOGIN_LOCK_MAX_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1800),
  /** An address without a failure for this long starts again from zero; longer than the longest lock. */
  IDENTITY_LOGIN_FAILURE_MEMORY_SECONDS: z.coerce.number().int().min(60).max(604_800).default(3600),
  /** `<keyId>:<base64 of 32 bytes>`: seals hmac signing secrets and webhook secrets at rest. */
  SECRETS_ENCRYPTION_KEY: masterKeyConfigSchema,
  /** Earlier master keys, comma-separated, same form: only to decrypt what the start-up re-encrypts under the current one. */
  SECRETS_ENCRYPTION_KEYS_OLD: z.preprocess(emptyAsUnset, oldMasterKeysConfigSchema.optional()),
  ...webhooksConfigShape,
};

/** Identity publishes tenant events, and consumes other services' audit records and platform events. */
async function declareIdentityTopology(channel: Channel): Promise<void> {
  await declareIdentityEvents(channel);
  await declareAuditRecords(channel);
  await declarePlatformEvents(channel);
}

const IDENTITY_QUEUES = [
  ...queueAndDeadLetters(TOPOLOGY.auditRecords.queue, TOPOLOGY.auditRecords.deadLetterQueue),
  ...queueAndDeadLetters(TOPOLOGY.platformEvents.queue, TOPOLOGY.platformEvents.deadLetterQueue),
];

/** The box every secret identity keeps is sealed in, its stored answers re-sealed under the current key. */
async function openSecrets(
  config: { SECRETS_ENCRYPTION_KEY: MasterKey; SECRETS_ENCRYPTION_KEYS_OLD?: MasterKey[] | undefined },
  db: Db,
  logger: Logger,
): Promise<SecretBox> {
  const columns = [SIGNING_SECRETS_COLUMN, WEBHOOK_SECRETS_COLUMN, ENDPOINT_SECRETS_COLUMN];
  const secrets = await openSecretBox({
    currentKey: config.SECRETS_ENCRYPTION_KEY,
    oldKeys: config.SECRETS_ENCRYPTION_KEYS_OLD ?? [],
    db,
    logger,
    columns,
  });
  await reencryptSealedAnswers({ db, box: secrets, logger });
  return secrets;
}

export async function start(env: NodeJS.ProcessEnv = process.env): Promise<RunningService> {
  return startService(
    {
      name: 'identity',
      port: { variable: 'IDENTITY_PORT', defaultPort: 8091 },
      config: identityConfigShape,
      migrations,
      topology: declareIdentityTopology,
      queues: IDENTITY_QUEUES,
      idempotencyKeys: true,
      retention: (config) => [
        idempotencyRetentionRule(),
        inboxRetentionRule(config.INBOX_RETENTION_DAYS),
        sessionsRetentionRule(config.IDENTITY_SESSION_RETENTION_DAYS),
        loginThrottlesRetentionRule(config.IDENTITY_LOGIN_FAILURE_MEMORY_SECONDS),
        ...webhooksRetentionRules(config),
      ],
      wire: async ({ config, db, relay, broker, logger, metrics }) => {
        const secrets = await openSecrets(config, db, logger);
        // Creations honour an optional Idempotency-Key; answers holding a secret shown once are kept sealed.
        const remember = idempotency({ db, required: false, logger });
        const rememberSealed = idempotency({ db, required: false, logger, sealing: sealedAnswers(secrets) });
        const mailer = config.SMTP_URL ? createMailer({ smtpUrl: config.SMTP_URL, from: config.SMTP_FROM }) : null;
        if (!mailer) logger.info('SMTP_URL is not set: invites and login locks will not be emailed (invite links go to the inviter)');
        const tenants = new TenantsService({ db, relay });
        const invites = new MemberInvites({ db, mailer: mailer && createInviteMailer(mailer), dashboardUrl: config.DASHBOARD_URL, logger });
        const organizations = new OrganizationsService({ db, tenants, invites });
        const notices = new LoginLockNotices({ db, mailer, logger });
        const throttle = new LoginThrottle({ db, policy: loginThrottlePolicyOf(config), notices, logger });
        const sessions = new SessionsService({ db, ttlSeconds: config.IDENTITY_SESSION_TTL_SECONDS, throttle });
        // A deactivated member's sessions end with the deactivation: the team asks sessions, which depend on the team.
        const team = new TeamService({ db, sessions, invites });
        const apiKeys = new ApiKeysService({ db, relay, secrets });
        const momoProviders = new MomoProvidersService({ db, secrets });
        const deadLetters = new DeadLettersService({ db, queues: new DeadLetterQueues({ broker, queues: DEAD_LETTER_QUEUES }) });
        const reviewNotices = mailer && new ReviewNotices({ db, mailer, dashboardUrl: config.DASHBOARD_URL, logger });
        await startAuditRecordsConsumer({ broker, db, logger, notices: reviewNotices });
        const sendingNotices = reviewNotices?.start(REVIEW_NOTICE_INTERVAL_MS);
        const webhooks = await startWebhooks({ config, db, broker, logger, metrics, secrets, mailer, rememberSealed });
        return {
          routes: (app) => {
            app.use(tenantsRouter(tenants, remember));
            app.use(organizationsRouter(organizations, remember));
            app.use(auditRouter(db));
            // After the audit router: /v1/team/:memberId must not swallow /v1/team/audit-events.
            app.use(teamRouter(team, remember, rememberSealed));
            app.use(sessionsRouter(sessions));
            app.use(apiKeysRouter(apiKeys, rememberSealed));
            app.use(apiKeyAuthRouter(apiKeys));
            app.use(momoProvidersRouter(momoProviders, rememberSealed));
            app.use(deadLettersRouter(deadLetters));
            webhooks.routes(app);
          },
          stop: async () => {
            await webhooks.stop();
            await throttle.stop();
            await sendingNotices?.stop();
            mailer?.close();
          },
        };
      },
    },
    env,
  );
}

if (require.main === module) runMain(() => start());
