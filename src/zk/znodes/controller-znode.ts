import { decodeInt32Decimal, decodeJsonObject, encodeJson, intField, timestampField } from './znode-json';

/** `/controller` (ephemeral): `{"version":1,"brokerid":0,"timestamp":"1535943857541"}`. */
export const ControllerZNode = {
  encode(brokerId: number, timestamp: number): Buffer {
    return encodeJson({ version: 1, brokerid: brokerId, timestamp: String(timestamp) });
  },
  decode(path: string, data: Buffer | null): { brokerId: number; timestamp: number } {
    const o = decodeJsonObject(path, data);
    return { brokerId: intField(path, o, 'brokerid'), timestamp: timestampField(path, o, 'timestamp') };
  },
};

/** `/controller_epoch` (persistent): the epoch as decimal text; its zkVersion fences controller writes. */
export const ControllerEpochZNode = {
  encode(epoch: number): Buffer {
    return Buffer.from(String(epoch), 'utf8');
  },
  decode(path: string, data: Buffer | null): number {
    return decodeInt32Decimal(path, data);
  },
};
