/**
 * A strict reader of the Prometheus text exposition format 0.0.4: every non-empty line is a `# HELP`, a `# TYPE` (before
 * the metric's first sample, once per metric), a comment or a sample `name{label="value",...} value`; names and
 * label names follow the format's grammar, label values are quoted with only \\, \" and \n escapes, values are
 * Go floats (NaN, +Inf, -Inf allowed). Anything else throws with the line number, so a test fails on a malformed
 * scrape rather than reading past it.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly samples: readonly Sample[];
  /** Metric name (as in # TYPE) -> type. */
  readonly types: ReadonlyMap<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const seenSamples = new Set<string>();
  const seriesSeen = new Set<string>();
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('exposition does not end with a newline');
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, i) => {
    const where = `line ${i + 1}: ${JSON.stringify(line)}`;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (m === null) return; // a plain comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new Error(`bad metric name in ${where}`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`bad type in ${where}`);
        if (types.has(name)) throw new Error(`second TYPE for ${name} at ${where}`);
        if (seenSamples.has(name)) throw new Error(`TYPE after samples of ${name} at ${where}`);
        types.set(name, rest);
      }
      return;
    }
    // The format ignores empty lines (prom-client puts one between metric families); whitespace-only ones are not.
    if (line === '') return;
    if (line.trim() === '') throw new Error(`whitespace-only line at ${where}`);
    const sample = parseSample(line, where);
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seriesSeen.has(key)) throw new Error(`duplicate series at ${where}`);
    seriesSeen.add(key);
    seenSamples.add(sample.name);
    samples.push(sample);
  });
  return { samples, types };
}

function parseSample(line: string, where: string): Sample {
  const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
  if (nameMatch === null) throw new Error(`bad sample name at ${where}`);
  const name = nameMatch[0];
  let pos = name.length;
  const labels: Record<string, string> = {};
  if (line[pos] === '{') {
    pos++;
    while (line[pos] !== '}') {
      const lm = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(pos));
      if (lm === null || !LABEL.test(lm[1] as string)) throw new Error(`bad label at ${where}`);
      pos += lm[0].length;
      let value = '';
      for (;;) {
        const c = line[pos];
        if (c === undefined) throw new Error(`unterminated label value at ${where}`);
        pos++;
        if (c === '"') break;
        if (c === '\\') {
          const e = line[pos++];
          if (e === 'n') value += '\n';
          else if (e === '\\' || e === '"') value += e;
          else throw new Error(`bad escape at ${where}`);
        } else value += c;
      }
      const label = lm[1] as string;
      if (label in labels) throw new Error(`label ${label} twice at ${where}`);
      labels[label] = value;
      if (line[pos] === ',') pos++;
      else if (line[pos] !== '}') throw new Error(`expected , or } at ${where}`);
    }
    pos++;
  }
  const rest = line.slice(pos);
  const vm = /^ (\S+)( -?\d+)?$/.exec(rest);
  if (vm === null) throw new Error(`bad value part at ${where}`);
  const text = vm[1] as string;
  // Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes "Nan").
  const special = text.toLowerCase();
  const value = special === 'nan' ? NaN : special === '+inf' || special === 'inf' ? Infinity : special === '-inf' ? -Infinity : Number(text);
  if (!/^(nan|[+-]?inf|[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?)$/.test(special)) throw new Error(`bad value at ${where}`);
  return { name, labels, value };
}

/** The value of the one sample of `name` whose labels include `labels`; undefined if there is none. */
export function sampleValue(exp: Exposition, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const want = Object.entries(labels);
  const matching = exp.samples.filter((s) => s.name === name && want.every(([k, v]) => s.labels[k] === v) && (want.length > 0 || Object.keys(s.labels).length === 0));
  if (matching.length > 1) throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matching[0]?.value;
}
