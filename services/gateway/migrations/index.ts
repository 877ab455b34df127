import type { Migration } from '@wallet/kit';
import * as createRequestNonces from './20261122130000_create_request_nonces';

export const migrations: Migration[] = [{ name: '20261122130000_create_request_nonces', ...createRequestNonces }];
