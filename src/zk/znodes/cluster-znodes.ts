import { randomUUID } from 'node:crypto';
import { decodeJsonObject, encodeJson, intField, stringField, ZnodeFormatError } from './znode-json';

/** `/cluster/id`: `{"version":"1","id":"IOejp_IKSbWbySJc0sRrKw"}` (version is a string here). */
export const ClusterIdZNode = {
  encode(id: string): Buffer {
    return encodeJson({ version: '1', id });
  },
  decode(path: string, data: Buffer | null): string {
    return stringField(path, decodeJsonObject(path, data), 'id');
  },
  /** A random UUID's 16 bytes in URL-safe Base64 without padding: 22 characters, like Kafka's Uuid. */
  generate(): string {
    return Buffer.from(randomUUID().replace(/-/g, ''), 'hex').toString('base64url');
  },
};

/** `/latest_producer_id_block`: `{"version":1,"broker":0,"block_start":"0","block_end":"999"}`. */
export const ProducerIdBlockZNode = {
  encode(brokerId: number, blockStart: number, blockEnd: number): Buffer {
    return encodeJson({ version: 1, broker: brokerId, block_start: String(blockStart), block_end: String(blockEnd) });
  },
  decode(path: string, data: Buffer | null): { brokerId: number; blockStart: number; blockEnd: number } {
    const o = decodeJsonObject(path, data);
    const start = Number(o['block_start']);
    const end = Number(o['block_end']);
    if (!Number.isFinite(start) || !Number.isFinite(end)) throw new ZnodeFormatError(path, 'bad block bounds');
    return { brokerId: intField(path, o, 'broker'), blockStart: start, blockEnd: end };
  },
};

/** `/feature` (2.7+): `{"features":{},"version":1,"status":1}`; status 1 = enabled. */
export const FeatureZNode = {
  encode(enabled: boolean): Buffer {
    return encodeJson({ features: {}, version: 1, status: enabled ? 1 : 0 });
  },
  decode(path: string, data: Buffer | null): { enabled: boolean } {
    return { enabled: intField(path, decodeJsonObject(path, data), 'status') === 1 };
  },
};
