import { formatJavaDate } from '../time-format';

/**
 * A reader for Java .properties text, as java.util.Properties.load reads it: `#` and `!` comments, `=`, `:` or
 * white space as separator, backslash line continuations (leading white space of the next line dropped), and
 * the escapes \t \n \r \f \uXXXX and \<char>. Later keys win. Keys keep file order.
 */
export function parseProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = (lines[i] ?? '').replace(/^[ \t\f]+/, '');
    if (line.length === 0 || line.startsWith('#') || line.startsWith('!')) continue;
    while (endsWithContinuation(line) && i + 1 < lines.length) {
      line = line.slice(0, -1) + (lines[++i] ?? '').replace(/^[ \t\f]+/, '');
    }
    if (endsWithContinuation(line)) line = line.slice(0, -1);
    const { key, value } = splitKeyValue(line);
    result.set(unescape(key), unescape(value));
  }
  return result;
}

function endsWithContinuation(line: string): boolean {
  let backslashes = 0;
  for (let i = line.length - 1; i >= 0 && line[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

function splitKeyValue(line: string): { key: string; value: string } {
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
    i++;
  }
  const key = line.slice(0, i);
  let rest = line.slice(i).replace(/^[ \t\f]+/, '');
  if (rest.startsWith('=') || rest.startsWith(':')) rest = rest.slice(1).replace(/^[ \t\f]+/, '');
  return { key, value: rest };
}

function unescape(text: string): string {
  if (!text.includes('\\')) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== '\\' || i + 1 >= text.length) {
      out += c;
      continue;
    }
    const n = text[++i];
    if (n === 't') out += '\t';
    else if (n === 'n') out += '\n';
    else if (n === 'r') out += '\r';
    else if (n === 'f') out += '\f';
    else if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) {
      out += String.fromCharCode(parseInt(text.slice(i + 1, i + 5), 16));
      i += 4;
    } else out += n;
  }
  return out;
}

/** Writes properties the way java.util.Properties.store does (a date comment, then key=value lines). */
export function formatProperties(entries: Iterable<[string, string]>, now: Date, comment?: string): string {
  const lines: string[] = [];
  lines.push(`#${comment ?? ''}`);
  lines.push(`#${formatJavaDate(now)}`);
  for (const [k, v] of entries) lines.push(`${escapeKey(k)}=${escapeValue(v)}`);
  return lines.join('\n') + '\n';
}

function escapeKey(k: string): string {
  return k.replace(/([\\:= #!])/g, '\\$1');
}

function escapeValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/^ /, '\\ ').replace(/([:=#!])/g, '\\$1');
}
