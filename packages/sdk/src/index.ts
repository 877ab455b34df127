export { WalletClient, SDK_VERSION } from './client';
export type { WalletClientOptions, RequestOptions, ResponseMeta, WalletResponse, RawRequest, RawMethod } from './client';
export type { WalletAuth, Actor } from './auth';
export type { FetchLike, FetchLikeResponse } from './transport';
export {
  WalletApiError,
  WalletNetworkError,
  WalletRequestValidationError,
  WalletResponseValidationError,
  isWalletApiError,
} from './errors';
export type { WalletErrorCode, ValidationIssues } from './errors';
export { paginate, paginateItems } from './paginate';
export type { CursorPage, ListFunction } from './paginate';
export { SDK_ROUTES, IDEMPOTENT_CREATE_PATHS } from './routes';
export type { ApiRoute, HttpMethod, RouteInput, RouteParams, RouteQuery, RouteBody, RouteResult } from './routes';
export type { PathParams, QueryValue } from './paths';
export type { Namespaces } from './namespaces';
export { verifyWebhook, WebhookVerificationError, isWebhookVerificationError, WEBHOOK_TOLERANCE_SECONDS } from './webhooks';
export type { WebhookHeaders, WebhookVerificationReason } from './webhooks';
// A number inside an event's object stays a LosslessNumber (its exact text), never a float.
export { LosslessNumber, isLosslessNumber } from '@wallet/contracts';
export type {
  ApiKey,
  ApiKeyWithSecret,
  AuditEvent,
  ErrorCode,
  EventType,
  JournalEntry,
  LedgerAccount,
  MomoProvider,
  MomoProviderWithSecret,
  Organization,
  PlatformEvent,
  ReconciliationResult,
  RequestLog,
  SystemAnalytics,
  TenantAnalytics,
  Session,
  TeamMember,
  Tenant,
} from '@wallet/contracts';
