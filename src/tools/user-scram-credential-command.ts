import { randomBytes } from 'node:crypto';
import { ErrorCode, errorNameOf } from '../common/error-codes';
import { ScramCredentialUpsertion } from '../protocol/apis/alter-user-scram-credentials';
import { DescribeUserScramCredentialsResponse } from '../protocol/apis/describe-user-scram-credentials';
import { SCRAM_MECHANISM_TYPES, SCRAM_MECHANISMS, ScramMechanism, saltedPassword, scramMechanismOfType } from '../security/scram-credential';
import { CliError } from './cli';

/*
 * The admin-client half of kafka-configs --bootstrap-server for SCRAM users (KIP-554): ConfigCommand's
 * iterationsAndPasswordBytes and KafkaAdminClient.alterUserScramCredentials' salting (the password never leaves
 * the tool), and describeClientQuotaAndUserScramCredentialConfigs' lines.
 */

/** ConfigCommand.DefaultScramIterations. */
const DEFAULT_SCRAM_ITERATIONS = 4096;

/** `[iterations=N,]password=P` (iterations -1 or absent: the default) -> the upsertion the admin client sends. */
export function scramUpsertion(user: string, mechanism: ScramMechanism, text: string): ScramCredentialUpsertion {
  const m = /^(?:iterations=(-?[0-9]*),)?password=(.*)$/s.exec(text);
  if (m === null) throw new CliError(`Invalid credential property ${mechanism}=${text}`);
  const iterations = m[1] !== undefined && m[1] !== '' && m[1] !== '-1' ? Number(m[1]) : DEFAULT_SCRAM_ITERATIONS;
  const min = SCRAM_MECHANISMS[mechanism].minIterations;
  if (!Number.isSafeInteger(iterations) || iterations < min) throw new CliError(`Iterations ${m[1] ?? iterations} is less than the minimum ${min} required for ${mechanism}`);
  // KafkaAdminClient: a fresh random salt per credential; only Hi(password, salt, i) is sent.
  const salt = randomBytes(32);
  return { name: user, mechanism: SCRAM_MECHANISM_TYPES[mechanism], iterations, salt, saltedPassword: saltedPassword(mechanism, m[2] as string, salt, iterations) };
}

/** The Java exception class's simple name for an error code (`e.getClass.getSimpleName`). */
function simpleExceptionName(code: number): string {
  const name = errorNameOf(code) ?? 'UNKNOWN_SERVER_ERROR';
  return `${name.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u: string, c: string) => c.toUpperCase())}Exception`;
}

/**
 * describeClientQuotaAndUserScramCredentialConfigs' SCRAM lines: users without credentials (RESOURCE_NOT_FOUND)
 * are left out, as DescribeUserScramCredentialsResult.users() leaves them; other per-user errors print an
 * `Error retrieving ...` line. The top-level error is the caller's to raise.
 */
export function scramDescriptionLines(response: DescribeUserScramCredentialsResponse): string[] {
  return response.results
    .filter((r) => r.errorCode !== ErrorCode.RESOURCE_NOT_FOUND.code)
    .map((r) => {
      if (r.errorCode !== ErrorCode.NONE.code) {
        const message = r.errorMessage ?? (ErrorCode as Record<string, { message: string }>)[errorNameOf(r.errorCode) ?? '']?.message ?? null;
        return `Error retrieving SCRAM credential configs for user-principal '${r.user}': ${simpleExceptionName(r.errorCode)}: ${message}`;
      }
      const text = r.credentialInfos.map((i) => `${scramMechanismOfType(i.mechanism) ?? 'UNKNOWN'}=iterations=${i.iterations}`).join(', ');
      return `SCRAM credential configs for user-principal '${r.user}' are ${text}`;
    });
}
