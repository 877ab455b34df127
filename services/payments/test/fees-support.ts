import type { HttpResult, PaymentsHarness, RequestOptions } from './support';
import { tenantToken } from './support';

/** The platform operator's schedules of a tenant. */
export const systemSchedules = (tenantId: string): string => `/v1/system/organizations/${tenantId}/fee-schedules`;

/** Calls on the platform surface (the harness's default token is a system one). */
export function platform(payments: PaymentsHarness) {
  return {
    create: (tenantId: string, body: Record<string, unknown> = { name: 'Standard', platformCommissionBps: 0 }): Promise<HttpResult> =>
      payments.request('POST', systemSchedules(tenantId), { body }),
    addRule: (tenantId: string, scheduleId: string, rule: Record<string, unknown>): Promise<HttpResult> =>
      payments.request('POST', `${systemSchedules(tenantId)}/${scheduleId}/rules`, { body: rule }),
    publish: (tenantId: string, scheduleId: string, body: Record<string, unknown> = {}): Promise<HttpResult> =>
      payments.request('POST', `${systemSchedules(tenantId)}/${scheduleId}/publish`, { body }),
    get: (tenantId: string, scheduleId: string): Promise<HttpResult> =>
      payments.request('GET', `${systemSchedules(tenantId)}/${scheduleId}`),
    list: (tenantId: string, query = ''): Promise<HttpResult> => payments.request('GET', `${systemSchedules(tenantId)}${query}`),
  };
}

/** Calls of a tenant's key (`tenant:manage` unless told), as the gateway forwards them. */
export function tenant(
  payments: PaymentsHarness,
  tenantId: string,
  options: { environment?: 'test' | 'live'; scopes?: string[]; actor?: { type: string; id: string } } = {},
) {
  const call = (method: string, path: string, extra: RequestOptions = {}) =>
    payments.request(method, path, { token: tenantToken(tenantId, options), ...extra });
  return {
    create: (body: Record<string, unknown> = { name: 'Tenant schedule' }): Promise<HttpResult> =>
      call('POST', '/v1/admin/fee-schedules', { body }),
    addRule: (scheduleId: string, rule: Record<string, unknown>): Promise<HttpResult> =>
      call('POST', `/v1/admin/fee-schedules/${scheduleId}/rules`, { body: rule }),
    addRuleRaw: (scheduleId: string, rawBody: string): Promise<HttpResult> =>
      call('POST', `/v1/admin/fee-schedules/${scheduleId}/rules`, { rawBody }),
    removeRule: (scheduleId: string, ruleId: string): Promise<HttpResult> =>
      call('DELETE', `/v1/admin/fee-schedules/${scheduleId}/rules/${ruleId}`),
    publish: (scheduleId: string, body?: Record<string, unknown>): Promise<HttpResult> =>
      call('POST', `/v1/admin/fee-schedules/${scheduleId}/publish`, body === undefined ? {} : { body }),
    get: (scheduleId: string): Promise<HttpResult> => call('GET', `/v1/admin/fee-schedules/${scheduleId}`),
    list: (query = ''): Promise<HttpResult> => call('GET', `/v1/admin/fee-schedules${query}`),
    quote: (transactionType: string, currencyCode: string, amount: string): Promise<HttpResult> =>
      call(
        'GET',
        `/v1/fees/quote?transactionType=${encodeURIComponent(transactionType)}&currencyCode=${encodeURIComponent(currencyCode)}&amount=${encodeURIComponent(amount)}`,
      ),
  };
}

/** A published default schedule of the platform with these rules; answers the schedule and its rules. */
export async function publishedDefault(
  payments: PaymentsHarness,
  tenantId: string,
  rules: Array<Record<string, unknown>>,
  platformCommissionBps = 0,
): Promise<{ scheduleId: string; ruleIds: string[] }> {
  const calls = platform(payments);
  const created = await calls.create(tenantId, { name: 'Default', platformCommissionBps });
  if (created.status !== 201) throw new Error(`schedule not created: ${JSON.stringify(created.body)}`);
  const ruleIds: string[] = [];
  for (const rule of rules) {
    const added = await calls.addRule(tenantId, created.body.id, rule);
    if (added.status !== 201) throw new Error(`rule not added: ${JSON.stringify(added.body)}`);
    ruleIds.push(added.body.id);
  }
  const published = await calls.publish(tenantId, created.body.id, { makeDefault: true });
  if (published.status !== 200) throw new Error(`schedule not published: ${JSON.stringify(published.body)}`);
  return { scheduleId: created.body.id, ruleIds };
}
