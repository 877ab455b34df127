/** Polls until `probe` returns a value other than undefined, or fails after the limit. */
export async function waitFor<Value>(
  probe: () => Promise<Value | undefined>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<Value> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? 'condition'}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}
