/** A list typed one item a line (or separated by commas or spaces): its items, or null when there are none. */
export function parseList(text: string): string[] | null {
  const items = text.split(/[\s,]+/).filter((item) => item !== '');
  return items.length === 0 ? null : items;
}

/** A list as the text of its input: one item a line. */
export function listText(items: readonly string[] | null): string {
  return (items ?? []).join('\n');
}
