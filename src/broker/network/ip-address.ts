import { isIP } from 'node:net';

/**
 * Whether `text` is an IPv4 or IPv6 address literal. Ip quota entities (`/config/ips/<ip>`) name addresses; this
 * broker does not resolve host names for them (a name would be looked up once and then go stale).
 */
export function isIpAddress(text: string): boolean {
  return isIP(text) !== 0;
}
