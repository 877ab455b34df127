/*
 * The address's search, as the API's queries read it: every value is text, so a hand-typed
 * `ownerId=123` stays the owner id "123" (the router's default turned it into the number 123,
 * which the filters refuse, and quoted a typed "123" in the address). Only a list, such as the
 * event log's types, is written as JSON.
 */

function valueOf(text: string): unknown {
  if (!text.startsWith('[')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function parseSearch(searchText: string): Record<string, unknown> {
  const search: Record<string, unknown> = {};
  for (const [key, text] of new URLSearchParams(searchText)) search[key] = valueOf(text);
  return search;
}

export function stringifySearch(search: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(search)) {
    if (value === undefined) continue;
    params.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
