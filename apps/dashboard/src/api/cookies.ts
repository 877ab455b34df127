/** The value of one cookie in a `document.cookie`-style text, or null. */
export function cookieValue(cookieText: string, name: string): string | null {
  for (const part of cookieText.split(';')) {
    const equals = part.indexOf('=');
    if (equals < 0) continue;
    if (part.slice(0, equals).trim() !== name) continue;
    const raw = part.slice(equals + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  return null;
}
