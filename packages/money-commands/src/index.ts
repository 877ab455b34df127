export * from './ledger-client';
export * from './ledger-reads';
export * from './maker-checker';
export * from './maker-checker-flow';
export * from './member-directory';
export * from './money-command';
export * from './money-command-statement';
export * from './postings';
