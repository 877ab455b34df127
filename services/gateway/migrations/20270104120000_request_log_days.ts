import type { Knex } from 'knex';

/**
 * Requests per UTC day, tenant, environment, status and error code: what the analytics'
 * request-error summary counts, so that a 30-day summary reads one row per day and status
 * instead of every request of the month. The writer's insert adds its batch here in the same
 * statement (request-log-store.ts), so the days always equal the logs they were counted from.
 * Requests of no environment are never summarized and are not counted.
 *
 * The backfill counts the logs already kept; SHARE mode holds off inserts of an instance still
 * running the old code until the days are written, so none is counted twice or missed.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE request_log_days (
      tenant_id    text,
      environment  text NOT NULL CHECK (environment IN ('test', 'live')),
      day          date NOT NULL,
      status       smallint NOT NULL,
      error_code   text,
      requests     bigint NOT NULL,
      CONSTRAINT request_log_days_key UNIQUE NULLS NOT DISTINCT (tenant_id, environment, day, status, error_code)
    )`);
  // The platform's summary: every tenant of one environment over a range of days.
  await db.raw('CREATE INDEX request_log_days_environment_day ON request_log_days (environment, day)');
  await db.raw('LOCK TABLE request_logs IN SHARE MODE');
  await db.raw(`
    INSERT INTO request_log_days (tenant_id, environment, day, status, error_code, requests)
    SELECT tenant_id, environment, (created_at AT TIME ZONE 'UTC')::date, status, error_code, count(*)
      FROM request_logs WHERE environment IS NOT NULL
     GROUP BY 1, 2, 3, 4, 5`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('request_log_days');
}
