import * as fs from 'node:fs';
import { crc32c } from '../records/crc32c';
import { BatchMetadata, ProducerStateEntry } from './producer-state-entry';

/**
 * `<offset>.snapshot`, Kafka's producer state snapshot (ProducerStateManager.writeSnapshot / readSnapshot,
 * PidSnapshot version 1), big-endian:
 *
 *   version int16 (1) | crc uint32 (CRC-32C of everything after it) | entry count int32 | entries
 *   entry: producer_id int64 | epoch int16 | last_sequence int32 | last_offset int64 | offset_delta int32 |
 *          timestamp int64 | coordinator_epoch int32 | current_txn_first_offset int64 (-1: none)
 *
 * Only each producer's last batch is stored, as in Kafka: after a restart the older four are learnt again from
 * the log tail replayed after the snapshot, or not at all.
 */
export const PRODUCER_SNAPSHOT_VERSION = 1;
const CRC_OFFSET = 2;
const ENTRIES_OFFSET = CRC_OFFSET + 4;
const ENTRY_SIZE = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;

/** Kafka's CorruptSnapshotException. */
export class CorruptSnapshotError extends Error {
  override readonly name = 'CorruptSnapshotError';
}

export function encodeProducerSnapshot(entries: Iterable<ProducerStateEntry>): Buffer {
  const list = [...entries];
  const buf = Buffer.alloc(ENTRIES_OFFSET + 4 + list.length * ENTRY_SIZE);
  buf.writeInt16BE(PRODUCER_SNAPSHOT_VERSION, 0);
  buf.writeInt32BE(list.length, ENTRIES_OFFSET);
  let pos = ENTRIES_OFFSET + 4;
  for (const e of list) {
    buf.writeBigInt64BE(BigInt(e.producerId), pos);
    buf.writeInt16BE(e.producerEpoch, pos + 8);
    buf.writeInt32BE(e.lastSeq, pos + 10);
    buf.writeBigInt64BE(BigInt(e.lastDataOffset), pos + 14);
    buf.writeInt32BE(e.lastOffsetDelta, pos + 22);
    buf.writeBigInt64BE(BigInt(e.lastTimestamp), pos + 26);
    buf.writeInt32BE(e.coordinatorEpoch, pos + 34);
    buf.writeBigInt64BE(BigInt(e.currentTxnFirstOffset), pos + 38);
    pos += ENTRY_SIZE;
  }
  buf.writeUInt32BE(crc32c(buf.subarray(ENTRIES_OFFSET)), CRC_OFFSET);
  return buf;
}

/** Reads a snapshot's entries; CorruptSnapshotError for an unknown version, a bad CRC or a short file. */
export function decodeProducerSnapshot(buf: Buffer): ProducerStateEntry[] {
  if (buf.length < ENTRIES_OFFSET + 4) throw new CorruptSnapshotError(`Snapshot failed schema validation: ${buf.length} bytes is too short`);
  const version = buf.readInt16BE(0);
  if (version !== PRODUCER_SNAPSHOT_VERSION) throw new CorruptSnapshotError(`Snapshot contained an unknown file version ${version}`);
  const crc = buf.readUInt32BE(CRC_OFFSET);
  const computed = crc32c(buf.subarray(ENTRIES_OFFSET));
  if (crc !== computed) throw new CorruptSnapshotError(`Snapshot is corrupt (CRC is no longer valid). Stored crc: ${crc}. Computed crc: ${computed}`);
  const count = buf.readInt32BE(ENTRIES_OFFSET);
  if (count < 0 || ENTRIES_OFFSET + 4 + count * ENTRY_SIZE > buf.length) throw new CorruptSnapshotError(`Snapshot failed schema validation: ${count} entries do not fit in ${buf.length} bytes`);
  const out: ProducerStateEntry[] = [];
  let pos = ENTRIES_OFFSET + 4;
  for (let i = 0; i < count; i++) {
    const producerId = Number(buf.readBigInt64BE(pos));
    const epoch = buf.readInt16BE(pos + 8);
    const lastSeq = buf.readInt32BE(pos + 10);
    const lastOffset = Number(buf.readBigInt64BE(pos + 14));
    const offsetDelta = buf.readInt32BE(pos + 22);
    const timestamp = Number(buf.readBigInt64BE(pos + 26));
    const coordinatorEpoch = buf.readInt32BE(pos + 34);
    const txnFirstOffset = Number(buf.readBigInt64BE(pos + 38));
    const batches = lastOffset >= 0 ? [new BatchMetadata(lastSeq, lastOffset, offsetDelta, timestamp)] : [];
    out.push(new ProducerStateEntry(producerId, epoch, batches, coordinatorEpoch, timestamp, txnFirstOffset >= 0 ? txnFirstOffset : -1));
    pos += ENTRY_SIZE;
  }
  return out;
}

export function readProducerSnapshot(file: string): ProducerStateEntry[] {
  return decodeProducerSnapshot(fs.readFileSync(file));
}

/**
 * Writes the snapshot; with `sync`, fsyncs it too. Kafka forces every snapshot to disk; here only the clean
 * shutdown's is, because a roll runs on the event loop and a snapshot lost or torn by a crash is found by its CRC
 * and replaced by the previous one plus a longer replay of the log: what is lost is time, not state.
 */
export function writeProducerSnapshot(file: string, entries: Iterable<ProducerStateEntry>, sync = false): void {
  const buf = encodeProducerSnapshot(entries);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, buf, 0, buf.length, 0);
    if (sync) fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
