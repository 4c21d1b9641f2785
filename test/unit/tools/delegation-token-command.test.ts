import { checkDelegationTokenArgs, formatTokenDate, formatTokens, tokenErrorMessage } from '../../../src/tools/delegation-token-command';

const base = { bootstrapServer: 'h:9092', commandConfig: 'c.properties' };

describe('kafka-delegation-tokens (DelegationTokenCommand)', () => {
  const savedTz = process.env['TZ'];
  beforeAll(() => {
    process.env['TZ'] = 'UTC';
  });
  afterAll(() => {
    process.env['TZ'] = savedTz;
  });

  it("checks its arguments in Kafka's order, with CommandLineUtils' messages", () => {
    expect(() => checkDelegationTokenArgs({ ...base })).toThrow('Command must include exactly one action: --create, --renew, --expire or --describe');
    expect(() => checkDelegationTokenArgs({ ...base, create: true, describe: true })).toThrow('exactly one action');
    expect(() => checkDelegationTokenArgs({ create: true, maxLifeTimePeriod: '-1' })).toThrow('Missing required argument "[bootstrap-server]"');
    expect(() => checkDelegationTokenArgs({ bootstrapServer: 'h:1', describe: true })).toThrow('Missing required argument "[command-config]"');
    expect(() => checkDelegationTokenArgs({ ...base, create: true })).toThrow('Missing required argument "[max-life-time-period]"');
    expect(() => checkDelegationTokenArgs({ ...base, renew: true, hmac: 'x' })).toThrow('Missing required argument "[renew-time-period]"');
    expect(() => checkDelegationTokenArgs({ ...base, expire: true, expiryTimePeriod: '-1' })).toThrow('Missing required argument "[hmac]"');
    expect(() => checkDelegationTokenArgs({ ...base, create: true, maxLifeTimePeriod: '-1', ownerPrincipal: ['User:a'] })).toThrow('Option "[create]" can\'t be used with option "[owner-principal]"');
    expect(() => checkDelegationTokenArgs({ ...base, describe: true, hmac: 'x' })).toThrow('Option "[describe]" can\'t be used with option "[hmac]"');
    expect(() => checkDelegationTokenArgs({ ...base, describe: true, ownerPrincipal: ['User:a'] })).not.toThrow();
  });

  it('prints the token table as Kafka 2.8 does (%-15s %-30s %-15s %-25s %-15s %-15s %-15s, local yyyy-MM-ddTHH:mm)', () => {
    expect(formatTokenDate(Date.UTC(2021, 4, 10, 9, 5, 30))).toBe('2021-05-10T09:05');
    const hmac = Buffer.from('0123456789', 'utf8');
    const text = formatTokens([
      {
        principalType: 'User',
        principalName: 'alice',
        issueTimestamp: Date.UTC(2021, 4, 10, 9, 5),
        expiryTimestamp: Date.UTC(2021, 4, 11, 9, 5),
        maxTimestamp: Date.UTC(2021, 4, 17, 9, 5),
        tokenId: 'AbCdEfGhIjKlMnOpQrStUv',
        hmac,
        renewers: [{ principalType: 'User', principalName: 'bob' }],
      },
    ]);
    expect(text).toBe(
      '\nTOKENID         HMAC                           OWNER           RENEWERS                  ISSUEDATE       EXPIRYDATE      MAXDATE        ' +
        '\nAbCdEfGhIjKlMnOpQrStUv MDEyMzQ1Njc4OQ==               User:alice      [User:bob]                2021-05-10T09:05 2021-05-11T09:05 2021-05-17T09:05\n',
    );
    expect(formatTokens([])).toBe('\nTOKENID         HMAC                           OWNER           RENEWERS                  ISSUEDATE       EXPIRYDATE      MAXDATE        ');
  });

  it("names the Java AdminClient's exceptions for the delegation-token errors", () => {
    expect(tokenErrorMessage(61)).toBe('org.apache.kafka.common.errors.DelegationTokenDisabledException: Delegation Token feature is not enabled.');
    expect(tokenErrorMessage(64)).toMatch(/^org\.apache\.kafka\.common\.errors\.UnsupportedByAuthenticationException: Delegation Token requests are not allowed/);
    expect(tokenErrorMessage(66)).toBe('org.apache.kafka.common.errors.DelegationTokenExpiredException: Delegation Token is expired.');
    expect(tokenErrorMessage(67)).toBe('org.apache.kafka.common.errors.InvalidPrincipalTypeException: Supplied principalType is not supported.');
  });
});
