/** Thrown by the codec readers when their output would pass the decompression cap (mapped to CORRUPT_MESSAGE). */
export class InflateLimitExceeded extends Error {
  constructor() {
    super('Decompressed data exceeds the limit');
  }
}
