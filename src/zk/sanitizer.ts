/**
 * Kafka's Sanitizer: entity names (client ids, user principals) become znode names by URL encoding, so that no
 * name can contain '/' or otherwise reach another znode: `my/client` is stored as `/config/clients/my%2Fclient`.
 * Java's URLEncoder keeps `a-zA-Z0-9.-*_` and writes a space as '+'; Kafka then writes '*' as %2A and '+' as %20.
 */
export function sanitize(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[a-zA-Z0-9._-]/.test(c)) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The name a sanitized znode name stands for (Java's URLDecoder: '+' is a space). */
export function desanitize(sanitized: string): string {
  try {
    return decodeURIComponent(sanitized.replace(/\+/g, ' '));
  } catch {
    return sanitized;
  }
}
