export * from './ledger-client';
export * from './ledger-reads';
export * from './maker-checker';
export * from './member-directory';
export * from './postings';
