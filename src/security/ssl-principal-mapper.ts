/**
 * Kafka's SslPrincipalMapper (`ssl.principal.mapping.rules`, KIP-371): turns a client certificate's subject
 * distinguished name (RFC 2253 form) into the principal's name. Rules are tried in order; `DEFAULT` keeps the DN
 * as it is; `RULE:pattern/replacement/[LU]` applies when the pattern matches the whole DN, replacing with `$1`
 * style references and optionally lower- or upper-casing the result. No rule applying fails the authentication.
 */
export class SslPrincipalMapper {
  private constructor(private readonly rules: readonly Rule[], private readonly text: string) {}

  /** Parses the rules as Kafka's SslPrincipalMapper.fromRules does; a malformed rule throws naming it. */
  static fromRules(text: string | null): SslPrincipalMapper {
    const source = text === null || text.trim() === '' ? 'DEFAULT' : text.trim();
    return new SslPrincipalMapper(splitRules(source).map(parseRule).filter((r): r is Rule => r !== undefined), source);
  }

  /** The principal name for `dn`; throws "No rules apply to ..." when none matches. */
  getName(dn: string): string {
    for (const rule of this.rules) {
      const name = applyRule(rule, dn);
      if (name !== undefined) return name;
    }
    throw new Error(`No rules apply to ${dn}, rules [${this.rules.map(ruleText).join(', ')}]`);
  }

  toString(): string {
    return `SslPrincipalMapper(rules = ${this.text})`;
  }
}

interface Rule {
  readonly isDefault: boolean;
  readonly pattern?: RegExp;
  readonly patternText?: string;
  readonly replacement?: string;
  readonly toLowerCase?: boolean;
  readonly toUpperCase?: boolean;
}

// Kafka's RULE_PATTERN: DEFAULT, or RULE:<pattern>/<replacement>/[LU] where `\/` escapes a slash.
const RULE_BODY = String.raw`(DEFAULT)|RULE:((?:\\.|[^\\/])*)/((?:\\.|[^\\/])*)/([LU]?)`;
const RULE_PARSER = new RegExp(`^(?:${RULE_BODY})`);

/** Rules are separated by commas (each optionally surrounded by white space, newlines included). */
function splitRules(text: string): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > 0) {
    const m = RULE_PARSER.exec(rest);
    if (m === null) {
      const comma = rest.indexOf(',');
      out.push(comma < 0 ? rest : rest.slice(0, comma));
      break;
    }
    out.push(m[0]);
    rest = rest.slice(m[0].length).replace(/^\s*,?\s*/, '');
  }
  return out;
}

function parseRule(rule: string): Rule | undefined {
  const m = RULE_PARSER.exec(rule);
  if (m === null) throw new Error(`Invalid rule: ${rule}`);
  if (m[0].length !== rule.length) throw new Error(`Invalid rule: \`${rule}\`, unmatched substring: \`${rule.slice(m[0].length)}\``);
  if (m[1] !== undefined) return { isDefault: true };
  const patternText = m[2] as string;
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${patternText})$`);
  } catch (e) {
    throw new Error(`Invalid rule: ${rule}: ${(e as Error).message}`);
  }
  return { isDefault: false, pattern, patternText, replacement: m[3] as string, toLowerCase: m[4] === 'L', toUpperCase: m[4] === 'U' };
}

function applyRule(rule: Rule, dn: string): string | undefined {
  if (rule.isDefault) return dn;
  const pattern = rule.pattern as RegExp;
  const m = pattern.exec(dn);
  if (m === null) return undefined;
  const groups = m.length - 1;
  // Java's replacement syntax: $n is a group, `\x` a literal x; a $n beyond the groups stays literal (Kafka's escapeLiteralBackReferences).
  const result = (rule.replacement as string).replace(/\\(.)|\$(\d)/g, (_all, escaped: string | undefined, group: string | undefined) => {
    if (escaped !== undefined) return escaped;
    const n = Number(group);
    return n <= groups ? (m[n] ?? '') : `$${group}`;
  });
  if (rule.toLowerCase) return result.toLowerCase();
  if (rule.toUpperCase) return result.toUpperCase();
  return result;
}

function ruleText(rule: Rule): string {
  if (rule.isDefault) return 'DEFAULT';
  return `RULE:${rule.patternText}/${rule.replacement}/${rule.toLowerCase ? 'L' : rule.toUpperCase ? 'U' : ''}`;
}
