export * from './tenant-config-read-model';
export * from './tenant-config-store';
export * from './tenant-directory';
export * from './tenant-config-from-identity';
