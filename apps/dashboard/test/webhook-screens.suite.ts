import { createWebhookEndpointBodySchema, eventRoutes, updateWebhookEndpointBodySchema, type WebhookEndpoint } from '@wallet/contracts';
import { developersSearchSchema, eventFiltersOf, eventQuery, requestLogFiltersOf } from '../src/app/team-filters';
import { endpointBodyOf, endpointFormValues, NEW_ENDPOINT } from '../src/forms/webhook-endpoint';
import { prettyJson } from '../src/format/json';
import {
  endpointState,
  eventTypesLabel,
  lastAttempt,
  replayedLabel,
  responseColor,
  responseLabel,
  splitEndpointSecret,
  SUBSCRIBABLE_EVENT_TYPES,
} from '../src/format/webhooks';

const endpoint: WebhookEndpoint = {
  id: 'we_1',
  environment: 'live',
  url: 'https://example.com/hooks',
  description: null,
  eventTypes: ['*'],
  enabled: true,
  disabledReason: null,
  previousSecretExpiresAt: null,
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
};

describe('the event JSON', () => {
  it('is laid out as JSON.stringify lays it out, from the text', () => {
    const text = '{"id":"ev_1","data":{"object":{"tags":[],"meta":{},"list":[1,{"a":"x\\"y,:{["}],"ok":true,"none":null}}}';
    expect(prettyJson(text)).toBe(JSON.stringify(JSON.parse(text), null, 2));
    expect(prettyJson(' { "a" : [ ] , "b" : { } } ')).toBe('{\n  "a": [],\n  "b": {}\n}');
  });

  it('keeps every token as the server wrote it: amounts, long numbers and escapes', () => {
    const text = '{"amount":"1250.50","fee":0.10,"big":12345678901234567890,"name":"caf\\u00e9"}';
    expect(prettyJson(text)).toBe('{\n  "amount": "1250.50",\n  "fee": 0.10,\n  "big": 12345678901234567890,\n  "name": "caf\\u00e9"\n}');
  });
});

describe('event filters', () => {
  it('keep the types a list in the URL and send them as the one text the API takes', () => {
    const search = developersSearchSchema.parse({
      tab: 'events',
      type: ['transfer.completed', 'wallet.created'],
      createdFrom: '2026-03-01T00:00:00.000Z',
      status: 401,
    });
    const filters = eventFiltersOf(search);
    expect(filters).toEqual({ type: ['transfer.completed', 'wallet.created'], createdFrom: '2026-03-01T00:00:00.000Z' });
    expect(eventRoutes.list.query.parse(eventQuery(filters))).toEqual({
      limit: 50,
      type: ['transfer.completed', 'wallet.created'],
      createdFrom: '2026-03-01T00:00:00.000Z',
    });
    // Each part of the screen reads its own filters only.
    expect(requestLogFiltersOf(search)).toEqual({ status: 401 });
    expect(Object.keys(requestLogFiltersOf(search))).toEqual(['status']);
  });

  it('refuse what the API would refuse', () => {
    expect(developersSearchSchema.safeParse({ type: ['transfer.sent'] }).success).toBe(false);
    expect(developersSearchSchema.safeParse({ type: [] }).success).toBe(false);
    expect(developersSearchSchema.safeParse({ objectId: 'not an id' }).success).toBe(false);
    expect(developersSearchSchema.safeParse({ createdTo: 'yesterday' }).success).toBe(false);
    expect(developersSearchSchema.safeParse({ tab: 'webhooks' }).success).toBe(true);
  });
});

describe('webhook endpoints', () => {
  it('split the secret off the endpoint that the caches may keep', () => {
    const { endpoint: kept, secret } = splitEndpointSecret({ ...endpoint, secret: 'whsec_SECRETVALUE' });
    expect(secret).toEqual({ label: 'Signing secret', value: 'whsec_SECRETVALUE' });
    expect(kept).toEqual(endpoint);
    expect(JSON.stringify(kept)).not.toContain('SECRETVALUE');
  });

  it('say whether they are delivered to, and who disabled one', () => {
    expect(endpointState(endpoint)).toEqual({ label: 'enabled', color: 'green', reason: null });
    expect(endpointState({ enabled: false, disabledReason: null }).reason).toBe('By your team');
    expect(endpointState({ enabled: false, disabledReason: 'gone' }).reason).toMatch(/410 Gone/);
    expect(endpointState({ enabled: false, disabledReason: 'failing' }).reason).toMatch(/kept failing/);
    expect(eventTypesLabel(['*'])).toBe('All events');
    expect(eventTypesLabel(['transfer.completed', 'wallet.frozen'])).toBe('transfer.completed, wallet.frozen');
  });

  it('become bodies the routes take: all types as `*`, a chosen list as chosen, an empty choice said plainly', () => {
    const created = endpointBodyOf({ ...NEW_ENDPOINT, url: ' https://example.com/hooks ', description: '  ' });
    if (!created.ok) throw new Error('refused');
    expect(createWebhookEndpointBodySchema.parse(created.fields)).toEqual({ url: 'https://example.com/hooks', eventTypes: ['*'] });

    const values = { ...endpointFormValues(endpoint), subscription: 'chosen' as const, eventTypes: ['transfer.completed'] };
    const edited = endpointBodyOf({ ...values, description: 'Payroll' });
    if (!edited.ok) throw new Error('refused');
    expect(updateWebhookEndpointBodySchema.parse(edited.fields)).toEqual({
      url: endpoint.url,
      eventTypes: ['transfer.completed'],
      description: 'Payroll',
    });
    expect(endpointBodyOf({ ...values, eventTypes: [] })).toEqual({ ok: false, errors: { eventTypes: 'Choose at least one type' } });
    expect(endpointFormValues({ ...endpoint, eventTypes: ['wallet.created'], description: 'x' })).toEqual({
      url: endpoint.url,
      subscription: 'chosen',
      eventTypes: ['wallet.created'],
      description: 'x',
    });
    expect(SUBSCRIBABLE_EVENT_TYPES).not.toContain('webhook_endpoint.test');
    expect(createWebhookEndpointBodySchema.safeParse({ url: 'not a url' }).success).toBe(false);
  });

  it("show a delivery's last answer, or that none came", () => {
    const attempt = (responseStatus: number | null) => ({ attemptedAt: endpoint.createdAt, responseStatus, latencyMs: 12, excerpt: '' });
    expect(lastAttempt({ attempts: [] })).toBeNull();
    expect(lastAttempt({ attempts: [attempt(500), attempt(204)] })?.responseStatus).toBe(204);
    expect([responseLabel(attempt(null)), responseColor(attempt(null))]).toEqual(['No answer', 'red']);
    expect([responseLabel(attempt(204)), responseColor(attempt(204))]).toEqual(['204', 'green']);
    expect(responseColor(attempt(301))).toBe('red');
    expect(replayedLabel(0)).toMatch(/nothing to replay/);
    expect(replayedLabel(3)).toBe('3 failed deliveries are being delivered again.');
  });
});
