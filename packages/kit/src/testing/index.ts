export * from './servers';
export * from './wait';
