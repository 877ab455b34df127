export * from './servers';
export * from './wait';
export * from './tcp-proxy';
export * from './pages';
export * from './ports';
export * from './suites';
export * from './webhook-receiver';
