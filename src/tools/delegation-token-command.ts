import { NetworkClient } from '../client/network-client';
import { ErrorCode } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { CreateDelegationTokenApi } from '../protocol/apis/create-delegation-token';
import { DescribeDelegationTokenApi, DescribedDelegationToken } from '../protocol/apis/describe-delegation-token';
import { ExpireDelegationTokenApi } from '../protocol/apis/expire-delegation-token';
import { RenewDelegationTokenApi } from '../protocol/apis/renew-delegation-token';
import { KafkaPrincipal, parseKafkaPrincipal, principalToString } from '../security/kafka-principal';
import { adminClientOptions, javaExceptionName } from './admin-client-config';
import { CliError } from './cli';
import { defaultErrorMessage, exceptionClassFor } from './java-rendering';

export interface DelegationTokenOptions {
  bootstrapServer?: string;
  commandConfig?: string;
  create?: boolean;
  renew?: boolean;
  expire?: boolean;
  describe?: boolean;
  ownerPrincipal?: string[];
  renewerPrincipal?: string[];
  maxLifeTimePeriod?: string;
  renewTimePeriod?: string;
  expiryTimePeriod?: string;
  hmac?: string;
}

/** The Java AdminClient's exceptions for the delegation-token error codes (Errors.java), not derived from the names. */
const TOKEN_EXCEPTIONS: ReadonlyMap<number, string> = new Map([
  [ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code, 'DelegationTokenDisabledException'],
  [ErrorCode.DELEGATION_TOKEN_NOT_FOUND.code, 'DelegationTokenNotFoundException'],
  [ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH.code, 'DelegationTokenOwnerMismatchException'],
  [ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code, 'UnsupportedByAuthenticationException'],
  [ErrorCode.DELEGATION_TOKEN_AUTHORIZATION_FAILED.code, 'DelegationTokenAuthorizationException'],
  [ErrorCode.DELEGATION_TOKEN_EXPIRED.code, 'DelegationTokenExpiredException'],
  [ErrorCode.INVALID_PRINCIPAL_TYPE.code, 'InvalidPrincipalTypeException'],
]);

/** A failed admin future as `ExecutionException.getMessage` shows it: `<exception class>: <message>`. */
export function tokenErrorMessage(code: number): string {
  const simple = TOKEN_EXCEPTIONS.get(code);
  return `${simple === undefined ? exceptionClassFor(code) : `org.apache.kafka.common.errors.${simple}`}: ${defaultErrorMessage(code)}`;
}

/** Kafka's DelegationTokenCommandOptions.checkArgs, after the "exactly one action" rule. */
export function checkDelegationTokenArgs(o: DelegationTokenOptions): void {
  const actions = [o.create, o.renew, o.expire, o.describe].filter((a) => a === true).length;
  if (actions !== 1) throw new CliError('Command must include exactly one action: --create, --renew, --expire or --describe');
  const has: Record<string, boolean> = {
    'bootstrap-server': o.bootstrapServer !== undefined,
    'command-config': o.commandConfig !== undefined,
    create: o.create === true,
    renew: o.renew === true,
    expire: o.expire === true,
    describe: o.describe === true,
    'owner-principal': o.ownerPrincipal !== undefined,
    'renewer-principal': o.renewerPrincipal !== undefined,
    'max-life-time-period': o.maxLifeTimePeriod !== undefined,
    'renew-time-period': o.renewTimePeriod !== undefined,
    'expiry-time-period': o.expiryTimePeriod !== undefined,
    hmac: o.hmac !== undefined,
  };
  const required = (...names: string[]): void => {
    for (const n of names) if (!has[n]) throw new CliError(`Missing required argument "[${n}]"`);
  };
  const invalid = (action: string, names: string[]): void => {
    if (!has[action]) return;
    for (const n of names) if (has[n]) throw new CliError(`Option "[${action}]" can't be used with option "[${n}]"`);
  };
  required('bootstrap-server', 'command-config');
  if (has['create']) required('max-life-time-period');
  if (has['renew']) required('hmac', 'renew-time-period');
  if (has['expire']) required('hmac', 'expiry-time-period');
  invalid('create', ['hmac', 'renew-time-period', 'expiry-time-period', 'owner-principal']);
  invalid('renew', ['renewer-principal', 'max-life-time-period', 'expiry-time-period', 'owner-principal']);
  invalid('expire', ['renew', 'max-life-time-period', 'renew-time-period', 'owner-principal']);
  invalid('describe', ['renew-time-period', 'max-life-time-period', 'hmac', 'expiry-time-period']);
}

/** joptsimple's Long conversion of an optional-argument option. */
function longArg(option: string, value: string | undefined): number {
  const text = value ?? '';
  if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new CliError(`Cannot parse argument '${text}' of option ${option}`);
  return Number(text);
}

function principals(values: readonly string[] | undefined): KafkaPrincipal[] | undefined {
  if (values === undefined) return undefined;
  try {
    return values.map((v) => parseKafkaPrincipal(v.trim()));
  } catch (err) {
    throw new CliError(`Exception in thread "main" java.lang.IllegalArgumentException: ${(err as Error).message}`);
  }
}

/** java.util.List.toString of principals: `[User:bob, User:carol]`. */
function javaList(ps: readonly KafkaPrincipal[]): string {
  return `[${ps.map(principalToString).join(', ')}]`;
}

/** SimpleDateFormat("yyyy-MM-dd'T'HH:mm") in the JVM's (here the process's) time zone. */
export function formatTokenDate(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** Java's `%-Ns`: left-justified, padded to N, never cut. */
function col(text: string, width: number): string {
  return text.padEnd(width);
}

function row(cells: readonly string[]): string {
  const widths = [15, 30, 15, 25, 15, 15, 15];
  return cells.map((c, i) => col(c, widths[i] ?? 15)).join(' ');
}

/** DelegationTokenCommand.printToken: a header line, then each token on its own line, as Kafka 2.8 prints them. */
export function formatTokens(tokens: readonly DescribedDelegationToken[]): string {
  let text = `\n${row(['TOKENID', 'HMAC', 'OWNER', 'RENEWERS', 'ISSUEDATE', 'EXPIRYDATE', 'MAXDATE'])}`;
  for (const t of tokens) {
    const renewers = t.renewers.map((r) => `${r.principalType}:${r.principalName}`);
    text += `\n${row([
      t.tokenId,
      t.hmac.toString('base64'),
      `${t.principalType}:${t.principalName}`,
      `[${renewers.join(', ')}]`,
      formatTokenDate(t.issueTimestamp),
      formatTokenDate(t.expiryTimestamp),
      formatTokenDate(t.maxTimestamp),
    ])}\n`;
  }
  return text;
}

/** Base64.getDecoder.decode: the basic alphabet with padding, IllegalArgumentException otherwise. */
function decodeHmac(hmac: string): Buffer {
  const bad = /[^A-Za-z0-9+/=]/.exec(hmac);
  if (bad !== null) throw new TokenCommandError(`Illegal base64 character ${(bad[0].codePointAt(0) ?? 0).toString(16)}`);
  return Buffer.from(hmac, 'base64');
}

/** What DelegationTokenCommand's catch prints after "Error while executing delegation token command : ". */
class TokenCommandError extends Error {}

function check(errorCode: number): void {
  if (errorCode !== ErrorCode.NONE.code) throw new TokenCommandError(tokenErrorMessage(errorCode));
}

/**
 * Kafka 2.8's DelegationTokenCommand (`kafka-delegation-tokens`): one of --create, --renew, --expire, --describe
 * through the admin client configured by --command-config. `write` receives the text exactly as the tool prints
 * it (print and println mixed, as Kafka's). A failed operation prints Kafka's error line and returns 1.
 */
export async function runDelegationTokenCommand(o: DelegationTokenOptions, write: (text: string) => void): Promise<number> {
  checkDelegationTokenArgs(o);
  const maxLifeTime = o.create === true ? longArg('max-life-time-period', o.maxLifeTimePeriod) : 0;
  const renewTime = o.renew === true ? longArg('renew-time-period', o.renewTimePeriod) : 0;
  const expiryTime = o.expire === true ? longArg('expiry-time-period', o.expiryTimePeriod) : 0;
  const renewers = principals(o.renewerPrincipal);
  const owners = principals(o.ownerPrincipal);
  const client = new NetworkClient(adminClientOptions(o.bootstrapServer as string, o.commandConfig, '--command-config', { clientId: 'adminclient-1' }));
  try {
    if (o.create === true) {
      const rs = renewers ?? [];
      write(`Calling create token operation with renewers :${javaList(rs)} , max-life-time-period :${maxLifeTime}\n`);
      const r = await client.request('any', CreateDelegationTokenApi, { renewers: rs.map((p) => ({ principalType: p.principalType, principalName: p.name })), maxLifetimeMs: maxLifeTime });
      check(r.errorCode);
      write(`Created delegation token with tokenId : ${r.tokenId}\n`);
      write(
        formatTokens([
          {
            principalType: r.principalType,
            principalName: r.principalName,
            issueTimestamp: r.issueTimestampMs,
            expiryTimestamp: r.expiryTimestampMs,
            maxTimestamp: r.maxTimestampMs,
            tokenId: r.tokenId,
            hmac: r.hmac,
            renewers: rs.map((p) => ({ principalType: p.principalType, principalName: p.name })),
          },
        ]),
      );
    } else if (o.renew === true) {
      const hmac = o.hmac ?? '';
      write(`Calling renew token operation with hmac :${hmac} , renew-time-period :${renewTime}\n`);
      const r = await client.request('any', RenewDelegationTokenApi, { hmac: decodeHmac(hmac), renewPeriodMs: renewTime });
      check(r.errorCode);
      write(`Completed renew operation. New expiry date : ${formatTokenDate(r.expiryTimestampMs)}\n`);
    } else if (o.expire === true) {
      const hmac = o.hmac ?? '';
      write(`Calling expire token operation with hmac :${hmac} , expire-time-period : ${expiryTime}\n`);
      const r = await client.request('any', ExpireDelegationTokenApi, { hmac: decodeHmac(hmac), expiryTimePeriodMs: expiryTime });
      check(r.errorCode);
      write(`Completed expire operation. New expiry date : ${formatTokenDate(r.expiryTimestampMs)}\n`);
    } else {
      write(owners === undefined ? 'Calling describe token operation for current user.\n' : `Calling describe token operation for owners :${javaList(owners)}\n`);
      const r = await client.request('any', DescribeDelegationTokenApi, { owners: owners === undefined ? null : owners.map((p) => ({ principalType: p.principalType, principalName: p.name })) });
      check(r.errorCode);
      write(`Total number of tokens : ${r.tokens.length}\n`);
      write(formatTokens(r.tokens));
    }
    return 0;
  } catch (err) {
    // Kafka's catch-all: the message on stdout, exit code 1.
    const message = err instanceof TokenCommandError ? err.message : err instanceof KafkaError ? `${javaExceptionName(err.errorName)}: ${err.message}` : (err as Error).message;
    write(`Error while executing delegation token command : ${message}\n`);
    return 1;
  } finally {
    client.close();
  }
}
