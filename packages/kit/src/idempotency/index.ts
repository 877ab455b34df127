export * from './fingerprint';
export * from './middleware';
export * from './purge';
export * from './response';
export * from './store';
export * from './table';
export { type IdempotentResult, isRememberedError, withIdempotency, type WithIdempotencyOptions } from './transactional';
