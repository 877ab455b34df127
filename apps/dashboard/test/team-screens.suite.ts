import {
  auditEventQuerySchema,
  type ApiKeyWithSecret,
  ORG_ROLES,
  requestLogRoutes,
  ROLE_SCOPES,
  SCOPES,
  timestampSchema,
} from '@wallet/contracts';
import { LosslessNumber } from 'lossless-json';
import {
  auditFiltersSchema,
  developersSearchSchema,
  requestLogFiltersOf,
  requestLogQuery,
  teamFiltersSchema,
} from '../src/app/team-filters';
import { grantableRoles, grantableScopes } from '../src/auth/grants';
import { localInputToTimestamp, timestampToLocalInput } from '../src/forms/datetime';
import { listText, parseList } from '../src/forms/lists';
import { credentialLabel, restrictionLabels, splitSecret } from '../src/format/api-keys';
import { auditDetails } from '../src/format/audit';

const listedKey = {
  id: 'ak_1',
  tenantId: 'tn_1',
  name: 'Payroll',
  authMode: 'secret' as const,
  environment: 'test' as const,
  scopes: ['wallets:read' as const],
  restrictions: { requireRequestSigning: false, requireActorHeaders: false, allowedIps: null },
  keyPrefix: 'sk_test_',
  last4: 'a1b2',
  status: 'active' as const,
  expiresAt: null,
  revokedAt: null,
  createdAt: '2026-03-01T10:00:00.000Z',
};

describe('request log filters', () => {
  it('keep the signature filter a boolean in the URL and send it as the text the API parses', () => {
    const search = developersSearchSchema.parse({
      tab: 'logs',
      environment: 'live',
      status: 401,
      requestSignatureVerified: false,
      correlationId: 'c-1',
    });
    const filters = requestLogFiltersOf(search);
    expect(filters).toEqual({ status: 401, requestSignatureVerified: false, correlationId: 'c-1' });
    const query = requestLogQuery(filters);
    expect(query.requestSignatureVerified).toBe('false');
    // What the client sends is the route's own query schema's reading of it.
    expect(requestLogRoutes.list.query.parse(query)).toEqual({
      limit: 50,
      status: 401,
      requestSignatureVerified: false,
      correlationId: 'c-1',
    });
    expect(requestLogRoutes.list.query.parse(requestLogQuery({ requestSignatureVerified: true })).requestSignatureVerified).toBe(true);
    expect(requestLogQuery({})).toEqual({ requestSignatureVerified: undefined });
  });

  it('refuse what the API would refuse', () => {
    expect(developersSearchSchema.safeParse({ status: 99 }).success).toBe(false);
    expect(developersSearchSchema.safeParse({ apiKeyId: 'not-a-key' }).success).toBe(false);
    expect(developersSearchSchema.safeParse({ tab: 'secrets' }).success).toBe(false);
    expect(developersSearchSchema.parse({ status: '404' }).status).toBe(404);
  });
});

describe('team and audit filters', () => {
  it("are picks of the routes' query schemas", () => {
    expect(teamFiltersSchema.parse({ orgRole: 'developer', status: 'deactivated' })).toEqual({
      orgRole: 'developer',
      status: 'deactivated',
    });
    expect(teamFiltersSchema.safeParse({ orgRole: 'owner' }).success).toBe(false);
    expect(auditFiltersSchema.safeParse({ action: 'Team member' }).success).toBe(false);
    expect(Object.keys(auditFiltersSchema.shape).every((field) => field in auditEventQuerySchema.shape)).toBe(true);
  });

  it('turn a local date-time input into the timestamp the API takes, and back', () => {
    const timestamp = localInputToTimestamp('2026-03-01T10:30');
    expect(timestamp).toBeDefined();
    expect(timestampSchema.safeParse(timestamp).success).toBe(true);
    expect(new Date(timestamp ?? '').getTime()).toBe(new Date(2026, 2, 1, 10, 30).getTime());
    expect(timestampToLocalInput(timestamp)).toBe('2026-03-01T10:30');
    expect(localInputToTimestamp('  ')).toBeUndefined();
    expect(timestampToLocalInput(undefined)).toBe('');
    // Text that is no date reaches the schema as it is, to be refused with its message.
    expect(auditFiltersSchema.safeParse({ from: localInputToTimestamp('yesterday') }).success).toBe(false);
  });
});

describe('audit details', () => {
  it('line up before and after field by field, and keep the rest', () => {
    const details = auditDetails({
      before: { orgRole: 'operator' },
      after: { orgRole: 'approver' },
      apiKeyId: 'ak_9',
      environment: 'live',
    });
    expect(details.changes).toEqual([{ field: 'orgRole', before: 'operator', after: 'approver' }]);
    expect(details.other).toEqual([
      { field: 'apiKeyId', value: 'ak_9' },
      { field: 'environment', value: 'live' },
    ]);
  });

  it('shows a field only one side names as absent on the other, and values exactly', () => {
    const details = auditDetails({
      before: { status: 'active' },
      revokedSessions: 2,
      limit: new LosslessNumber('12345678901234567890.01'),
      restrictions: { allowedIps: ['10.0.0.0/8'] },
    });
    expect(details.changes).toEqual([{ field: 'status', before: 'active', after: '—' }]);
    expect(details.other).toEqual([
      { field: 'revokedSessions', value: '2' },
      { field: 'limit', value: '12345678901234567890.01' },
      { field: 'restrictions', value: '{"allowedIps":["10.0.0.0/8"]}' },
    ]);
    expect(auditDetails({ before: 'frozen', after: 'active' }).changes).toEqual([{ field: 'value', before: 'frozen', after: 'active' }]);
    expect(auditDetails({})).toEqual({ changes: [], other: [] });
  });
});

describe('API key secrets', () => {
  it('are split off the key that the caches may keep', () => {
    const answer: ApiKeyWithSecret = { ...listedKey, key: 'sk_test_SECRETVALUE' };
    const { apiKey, secret } = splitSecret(answer);
    expect(secret).toEqual({ label: 'Secret key', value: 'sk_test_SECRETVALUE' });
    expect(apiKey).toEqual(listedKey);
    expect(JSON.stringify(apiKey)).not.toContain('SECRETVALUE');

    const signed = splitSecret({ ...listedKey, authMode: 'hmac', keyPrefix: null, last4: null, signingSecret: 'whsec_SIGNING' });
    expect(signed.secret).toEqual({ label: 'Signing secret', value: 'whsec_SIGNING' });
    expect(Object.keys(signed.apiKey)).not.toContain('signingSecret');
    expect(splitSecret(listedKey).secret).toBeNull();
  });

  it('leave a label to recognise the key by, and its restrictions in words', () => {
    expect(credentialLabel(listedKey)).toBe('sk_test_…a1b2');
    expect(credentialLabel({ ...listedKey, authMode: 'hmac', keyPrefix: null, last4: null })).toBe('HMAC-signed · ak_1');
    expect(restrictionLabels(listedKey.restrictions)).toEqual([]);
    expect(restrictionLabels({ requireRequestSigning: true, requireActorHeaders: true, allowedIps: ['10.0.0.0/8', '192.0.2.1'] })).toEqual([
      'Signed requests only',
      'Actor headers required',
      'From 10.0.0.0/8, 192.0.2.1',
    ]);
    expect(restrictionLabels({ requireRequestSigning: false, requireActorHeaders: false, allowedIps: [] })).toEqual([]);
  });

  it('read allowed addresses one a line, none meaning no restriction', () => {
    expect(parseList('10.0.0.0/8\n 192.0.2.1 , 2001:db8::/32\n')).toEqual(['10.0.0.0/8', '192.0.2.1', '2001:db8::/32']);
    expect(parseList(' \n ')).toBeNull();
    expect(listText(['10.0.0.0/8', '192.0.2.1'])).toBe('10.0.0.0/8\n192.0.2.1');
    expect(listText(null)).toBe('');
  });
});

describe('what a session may hand on', () => {
  it('offers only the roles whose every scope the session holds', () => {
    expect(grantableRoles(ROLE_SCOPES['org-admin'])).toEqual([...ORG_ROLES]);
    // Roles name their reads one by one: an operator holds the observer's scopes, not the finance viewer's audit trail.
    expect(grantableRoles(ROLE_SCOPES.operator)).toEqual(['operator', 'observer', 'user']);
    expect(grantableRoles(ROLE_SCOPES.observer)).toEqual(['observer', 'user']);
    expect(grantableRoles([])).toEqual(['user']);
  });

  it('offers only the scopes the session holds, umbrellas included', () => {
    expect(grantableScopes(ROLE_SCOPES.developer)).toEqual([
      'wallets:read',
      'request_logs:read',
      'api_keys:manage',
      'webhooks:manage',
      'events:read',
      'team:read',
      'journal:read',
    ]);
    // ledger:read is the umbrella of every read scope: a key holding it may hand on any of them.
    expect(grantableScopes(['ledger:read'])).toEqual(SCOPES.filter((scope) => scope.endsWith(':read')));
    // tenant:manage covers every scope: an org-admin may hand on any of them.
    expect(grantableScopes(ROLE_SCOPES['org-admin'])).toEqual([...SCOPES]);
  });
});
