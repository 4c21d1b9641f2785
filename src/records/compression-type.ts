/**
 * Compression codec ids as they appear in bits 0-2 of the batch (v2) and message (v0/v1) attributes, and the
 * names used by the `compression.type` config. zstd exists only in magic 2 (Kafka 2.1+, KIP-110).
 */
export enum CompressionType {
  NONE = 0,
  GZIP = 1,
  SNAPPY = 2,
  LZ4 = 3,
  ZSTD = 4,
}

const NAMES: Record<CompressionType, string> = {
  [CompressionType.NONE]: 'none',
  [CompressionType.GZIP]: 'gzip',
  [CompressionType.SNAPPY]: 'snappy',
  [CompressionType.LZ4]: 'lz4',
  [CompressionType.ZSTD]: 'zstd',
};

export function compressionTypeName(type: CompressionType): string {
  return NAMES[type];
}

export function isCompressionTypeId(id: number): id is CompressionType {
  return id >= 0 && id <= 4 && Number.isInteger(id);
}

/** Maps a topic's `compression.type` value (not `producer`) to a codec: `uncompressed` is Kafka's name for none. */
export function compressionTypeForConfig(name: string): CompressionType | undefined {
  switch (name) {
    case 'uncompressed':
      return CompressionType.NONE;
    case 'gzip':
      return CompressionType.GZIP;
    case 'snappy':
      return CompressionType.SNAPPY;
    case 'lz4':
      return CompressionType.LZ4;
    case 'zstd':
      return CompressionType.ZSTD;
    default:
      return undefined;
  }
}
