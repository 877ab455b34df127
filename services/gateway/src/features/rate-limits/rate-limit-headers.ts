import { AppError } from '@wallet/kit';
import type { Response } from 'express';
import type { RateLimitDecision } from './rate-limiter';

/**
 * The IETF draft headers of the tightest bucket. Set before the answer exists, they stay on
 * whatever answer follows: the service's, or an error body.
 */
export function writeRateLimitHeaders(response: Response, decision: RateLimitDecision | null): void {
  if (!decision) return;
  response.setHeader('RateLimit-Limit', String(decision.limit));
  response.setHeader('RateLimit-Remaining', String(decision.remaining));
  response.setHeader('RateLimit-Reset', String(decision.resetSeconds));
}

/** Writes the headers; a refusal also gets `Retry-After` and becomes `429 RATE_LIMITED`. */
export function enforceRateLimit(response: Response, decision: RateLimitDecision | null): void {
  writeRateLimitHeaders(response, decision);
  if (!decision || decision.allowed) return;
  response.setHeader('Retry-After', String(decision.retryAfterSeconds));
  throw new AppError('RATE_LIMITED', `Too many requests; retry after ${decision.retryAfterSeconds} s`, {
    retryAfterSeconds: decision.retryAfterSeconds,
  });
}
