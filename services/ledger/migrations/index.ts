import type { Migration } from '@wallet/kit';
import * as createLedger from './20261122120000_create_ledger';

export const migrations: Migration[] = [{ name: '20261122120000_create_ledger', ...createLedger }];
