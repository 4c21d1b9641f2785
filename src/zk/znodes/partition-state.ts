import { decodeJsonObject, encodeJson, intArray, intField } from './znode-json';

/**
 * `/brokers/topics/<t>/partitions/<p>/state`:
 * `{"controller_epoch":1,"leader":2,"version":1,"leader_epoch":0,"isr":[2,3,1]}`. leader -1 = no leader.
 * The node's dataVersion is the partition's zkVersion, used for conditional writes.
 */
export interface LeaderIsrAndControllerEpoch {
  leader: number;
  leaderEpoch: number;
  isr: number[];
  controllerEpoch: number;
}

export const PartitionStateZNode = {
  encode(s: LeaderIsrAndControllerEpoch): Buffer {
    return encodeJson({ controller_epoch: s.controllerEpoch, leader: s.leader, version: 1, leader_epoch: s.leaderEpoch, isr: s.isr });
  },

  decode(path: string, data: Buffer | null): LeaderIsrAndControllerEpoch {
    const o = decodeJsonObject(path, data);
    return {
      leader: intField(path, o, 'leader'),
      leaderEpoch: intField(path, o, 'leader_epoch'),
      isr: intArray(path, o['isr'], 'isr'),
      controllerEpoch: intField(path, o, 'controller_epoch'),
    };
  },
};
