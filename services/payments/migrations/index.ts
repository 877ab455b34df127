import type { Migration } from '@wallet/kit';
import * as createOutboxAndInbox from './20261122120000_create_outbox_and_inbox';

export const migrations: Migration[] = [{ name: '20261122120000_create_outbox_and_inbox', ...createOutboxAndInbox }];
