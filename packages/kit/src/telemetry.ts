/**
 * Tracing starts in telemetry-preload.ts, loaded before the service's code. What is left here is
 * the end: spans still buffered by the batch processor are exported before the process exits
 * (runMain calls it after the service closed). A no-op when tracing is off.
 */
export async function flushTelemetry(): Promise<void> {
  const telemetry = (globalThis as { __walletTelemetry?: { forceFlush(): Promise<void> } }).__walletTelemetry;
  await telemetry?.forceFlush().catch(() => undefined);
}
