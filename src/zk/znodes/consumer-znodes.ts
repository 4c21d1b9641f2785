import { formatInt64 } from '../../common/int64';
import { decodeDecimal, decodeJsonObject, encodeJson, intField, Json, stringField, timestampField, ZnodeFormatError } from './znode-json';

export type SubscriptionPattern = 'static' | 'white_list' | 'black_list';

/**
 * `/consumers/<group>/ids/<consumerId>` (ephemeral), the 0.8 high-level consumer's registration:
 * `{"version":1,"subscription":{"orders":2},"pattern":"static","timestamp":"1596870156399"}`. For a wildcard
 * subscription the single entry maps the regex to the stream count and pattern is white_list or black_list.
 */
export interface ConsumerRegistration {
  subscription: Map<string, number>;
  pattern: SubscriptionPattern;
  timestamp: number;
}

export const ConsumerRegistrationZNode = {
  encode(r: ConsumerRegistration): Buffer {
    const subscription: Record<string, number> = {};
    for (const [k, v] of r.subscription) subscription[k] = v;
    return encodeJson({ version: 1, subscription, pattern: r.pattern, timestamp: String(r.timestamp) });
  },
  decode(path: string, data: Buffer | null): ConsumerRegistration {
    const o = decodeJsonObject(path, data);
    intField(path, o, 'version');
    const pattern = stringField(path, o, 'pattern');
    if (pattern !== 'static' && pattern !== 'white_list' && pattern !== 'black_list') throw new ZnodeFormatError(path, `bad pattern ${pattern}`);
    const sub = o['subscription'];
    if (typeof sub !== 'object' || sub === null) throw new ZnodeFormatError(path, 'field "subscription" is not an object');
    const subscription = new Map<string, number>();
    for (const [k, v] of Object.entries(sub as Json)) subscription.set(k, Number(v));
    return { subscription, pattern, timestamp: timestampField(path, o, 'timestamp') };
  },
};

/** `/consumers/<group>/offsets/<topic>/<partition>`: the next offset to consume, decimal text. */
export const ConsumerOffsetZNode = {
  encode(offset: number): Buffer {
    return Buffer.from(formatInt64(offset), 'utf8');
  },
  decode(path: string, data: Buffer | null): number {
    return decodeDecimal(path, data);
  },
};

/** `/consumers/<group>/owners/<topic>/<partition>` (ephemeral): the owning consumer thread id, as text. */
export const ConsumerOwnerZNode = {
  encode(threadId: string): Buffer {
    return Buffer.from(threadId, 'utf8');
  },
  decode(_path: string, data: Buffer | null): string {
    return data?.toString('utf8') ?? '';
  },
};
