/** JSON parsing that refuses duplicate member names, so a signed document means one thing to every parser. */

/** Thrown when the text is not JSON or repeats a member name in one object. */
export class StrictJsonError extends Error {}

/**
 * The first member name that appears twice in one object of `text`, or undefined. `text` must be
 * valid JSON (call JSON.parse first); names are compared after unescaping (`"a"` equals `"\u0061"`).
 */
export function findDuplicateKey(text: string): string | undefined {
  const stack: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top && expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.has(key)) return key;
        top.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      stack.push(null);
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      expectKey = stack[stack.length - 1] != null;
    }
  }
  return undefined;
}

/** Parses `text` as JSON, refusing duplicate member names (RFC 8259 §4 leaves them undefined). */
export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StrictJsonError('The payload is not valid JSON.');
  }
  const dup = findDuplicateKey(text);
  if (dup !== undefined) throw new StrictJsonError(`The payload repeats the member "${dup}".`);
  return value;
}
