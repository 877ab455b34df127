const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** The index of the first character from `from` that is no JSON whitespace. */
function nextToken(text: string, from: number): number {
  let index = from;
  while (index < text.length && WHITESPACE.has(text[index] as string)) index += 1;
  return index;
}

/** Where the string opening at `start` ends (the index after its closing quote), its escapes skipped. */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
  return index + 1;
}

/**
 * JSON text indented two spaces a level, as `JSON.stringify(value, null, 2)` lays it out, with
 * every token kept as the server wrote it: nothing is parsed into values, so a number keeps its
 * digits (no float rounds it) and a string its escapes. Text that is no JSON comes back re-spaced,
 * not refused: this shows an answer, it does not check one.
 */
export function prettyJson(text: string): string {
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let index = nextToken(text, 0); index < text.length; index = nextToken(text, index)) {
    const char = text[index] as string;
    if (char === '"') {
      const end = stringEnd(text, index);
      out += text.slice(index, end);
      index = end;
      continue;
    }
    index += 1;
    if (char === '{' || char === '[') {
      const close = char === '{' ? '}' : ']';
      const after = nextToken(text, index);
      if (text[after] === close) {
        out += `${char}${close}`;
        index = after + 1;
      } else {
        depth += 1;
        out += `${char}${newline()}`;
      }
    } else if (char === '}' || char === ']') {
      depth = Math.max(0, depth - 1);
      out += `${newline()}${char}`;
    } else if (char === ',') out += `,${newline()}`;
    else if (char === ':') out += ': ';
    else out += char;
  }
  return out;
}
