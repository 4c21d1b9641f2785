import { readFileSync } from 'node:fs';

/** One login module line of a JAAS configuration: `<class> <flag> key="value" ...;`. */
export interface JaasLoginModule {
  readonly loginModule: string;
  readonly controlFlag: 'required' | 'requisite' | 'sufficient' | 'optional';
  readonly options: ReadonlyMap<string, string>;
}

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);

/**
 * A tokenizer close to Java's StreamTokenizer as Kafka's JaasConfig sets it up: words of letters, digits and
 * `._-$`, quoted strings with backslash escapes, `//` and `/* *\/` comments, and the single characters `{ } ; =`.
 */
function tokenize(text: string): { kind: 'word' | 'quoted' | 'char'; value: string }[] {
  const out: { kind: 'word' | 'quoted' | 'char'; value: string }[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === '"' || c === "'") {
      let value = '';
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        value += text[i];
        i++;
      }
      if (i >= text.length) throw new Error('Invalid JAAS config: unterminated quoted string');
      i++;
      out.push({ kind: 'quoted', value });
    } else if (/[A-Za-z0-9._$\-]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z0-9._$\-]/.test(text[j] as string)) j++;
      out.push({ kind: 'word', value: text.slice(i, j) });
      i = j;
    } else {
      out.push({ kind: 'char', value: c });
      i++;
    }
  }
  return out;
}

class Tokens {
  private i = 0;
  constructor(private readonly tokens: { kind: 'word' | 'quoted' | 'char'; value: string }[]) {}
  peek(): { kind: string; value: string } | undefined {
    return this.tokens[this.i];
  }
  next(): { kind: string; value: string } | undefined {
    return this.tokens[this.i++];
  }
  isChar(c: string): boolean {
    const t = this.peek();
    return t !== undefined && t.kind === 'char' && t.value === c;
  }
}

/** Reads one `<class> <flag> k=v ... ;` entry (Kafka's JaasConfig.parseAppConfigurationEntry). */
function parseModule(t: Tokens): JaasLoginModule {
  const name = t.next();
  if (name === undefined || name.kind !== 'word') throw new Error('Invalid JAAS config: login module name expected');
  const flag = t.next();
  if (flag === undefined || flag.kind === 'char') throw new Error('Login module control flag not specified in JAAS config');
  const controlFlag = flag.value.toLowerCase();
  if (!FLAGS.has(controlFlag)) throw new Error(`Invalid login module control flag '${flag.value}' in JAAS config`);
  const options = new Map<string, string>();
  for (;;) {
    if (t.isChar(';')) {
      t.next();
      break;
    }
    const key = t.next();
    if (key === undefined) throw new Error('JAAS config entry not terminated by semi-colon');
    if (key.kind === 'char') throw new Error(`Invalid JAAS config: unexpected '${key.value}'`);
    if (!t.isChar('=')) throw new Error(`Value not specified for key '${key.value}' in JAAS config`);
    t.next();
    const value = t.next();
    if (value === undefined || value.kind === 'char') throw new Error(`Value not specified for key '${key.value}' in JAAS config`);
    options.set(key.value, value.value);
  }
  return { loginModule: name.value, controlFlag: controlFlag as JaasLoginModule['controlFlag'], options };
}

/**
 * A `sasl.jaas.config` value (Kafka's JaasConfig): exactly one login module. Throws Kafka's messages
 * ("JAAS config property does not contain a login module", ...) for anything else.
 */
export function parseJaasConfigProperty(text: string): JaasLoginModule {
  const t = new Tokens(tokenize(text));
  const modules: JaasLoginModule[] = [];
  while (t.peek() !== undefined) modules.push(parseModule(t));
  if (modules.length === 0) throw new Error('JAAS config property does not contain a login module');
  if (modules.length > 1) throw new Error(`JAAS config property contains ${modules.length} login modules, should be 1 module`);
  return modules[0] as JaasLoginModule;
}

/** A JAAS file: named sections (`KafkaServer { ... };`, `Client { ... };`), each a list of login modules. */
export function parseJaasFile(text: string): Map<string, JaasLoginModule[]> {
  const t = new Tokens(tokenize(text));
  const sections = new Map<string, JaasLoginModule[]>();
  while (t.peek() !== undefined) {
    const name = t.next();
    if (name === undefined || name.kind !== 'word') throw new Error('Invalid JAAS file: section name expected');
    if (!t.isChar('{')) throw new Error(`Invalid JAAS file: '{' expected after ${name.value}`);
    t.next();
    const modules: JaasLoginModule[] = [];
    while (!t.isChar('}')) {
      if (t.peek() === undefined) throw new Error(`Invalid JAAS file: section ${name.value} not closed by '}'`);
      modules.push(parseModule(t));
    }
    t.next();
    if (t.isChar(';')) t.next();
    sections.set(name.value, modules);
  }
  return sections;
}

/**
 * The JAAS file Kafka would read: the `java.security.auth.login.config` system property, which Kafka's scripts
 * take from `-Djava.security.auth.login.config=<file>` in KAFKA_OPTS. Only that one property is read from
 * KAFKA_OPTS. Undefined when it is not set.
 */
export function jaasFileFromKafkaOpts(kafkaOpts: string | undefined): string | undefined {
  if (kafkaOpts === undefined) return undefined;
  const m = /(?:^|\s)-Djava\.security\.auth\.login\.config=("([^"]*)"|'([^']*)'|(\S+))/.exec(kafkaOpts);
  return m === null ? undefined : (m[2] ?? m[3] ?? m[4]);
}

/** Reads and parses the JAAS file named in KAFKA_OPTS; undefined when there is none. */
export function loadJaasFileFromEnv(env: NodeJS.ProcessEnv = process.env): Map<string, JaasLoginModule[]> | undefined {
  const file = jaasFileFromKafkaOpts(env['KAFKA_OPTS']);
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`Could not read the JAAS file ${file} named by java.security.auth.login.config: ${(e as Error).message}`);
  }
  return parseJaasFile(text);
}
