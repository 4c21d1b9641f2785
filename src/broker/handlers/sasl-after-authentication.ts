import { ErrorCode } from '../../common/error-codes';
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '../../protocol/apis/sasl-authenticate';
import { SaslHandshakeRequest, SaslHandshakeResponse } from '../../protocol/apis/sasl-handshake';
import { ApiHandler } from '../network/api-handler';
import { HandlerContext } from './handler-context';

/**
 * KafkaApis.handleSaslHandshakeRequest / handleSaslAuthenticateRequest: the SaslServerAuthenticator answers
 * these while a connection authenticates, so one reaching KafkaApis comes after authentication (or on a
 * PLAINTEXT listener) and is refused with ILLEGAL_SASL_STATE. Installed only on a broker with a SASL listener,
 * which then advertises both APIs.
 */
export function createSaslHandlers(ctx: HandlerContext): {
  handshake?: ApiHandler<SaslHandshakeRequest, SaslHandshakeResponse>;
  authenticate?: ApiHandler<SaslAuthenticateRequest, SaslAuthenticateResponse>;
} {
  if (!ctx.config.listeners.some((l) => l.securityProtocol.startsWith('SASL_'))) return {};
  return {
    handshake: () => ({ errorCode: ErrorCode.ILLEGAL_SASL_STATE.code, mechanisms: [] }),
    authenticate: () => ({
      errorCode: ErrorCode.ILLEGAL_SASL_STATE.code,
      errorMessage: 'SaslAuthenticate request received after successful authentication',
      authBytes: Buffer.alloc(0),
      sessionLifetimeMs: 0,
    }),
  };
}
