import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  correlationId: string;
  /** The list and caller a cursor issued in this request belongs to (bindCursors). */
  cursorBinding?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithContext<Result>(context: RequestContext, work: () => Result): Result {
  return storage.run(context, work);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}
