import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeLogDirs (key 35), v0-2: Kafka 2.8's whole window. v1 only changes throttling (the response goes out
 * before the quota delay); v2 is the first flexible version. `topics` null asks for every partition of the broker.
 * Kafka 3.0's v3 (top-level ErrorCode) and 3.1's v4 (total/usable bytes) are newer than 2.8.
 */
export interface DescribableLogDirTopic {
  topic: string;
  partitionIndex: number[];
}

export interface DescribeLogDirsRequest {
  topics: DescribableLogDirTopic[] | null;
}

export interface DescribeLogDirsPartition {
  partitionIndex: number;
  partitionSize: number;
  offsetLag: number;
  isFutureKey: boolean;
}

export interface DescribeLogDirsTopic {
  name: string;
  partitions: DescribeLogDirsPartition[];
}

export interface DescribeLogDirsResult {
  errorCode: number;
  logDir: string;
  topics: DescribeLogDirsTopic[];
}

export interface DescribeLogDirsResponse {
  throttleTimeMs: number;
  results: DescribeLogDirsResult[];
}

export const DescribeLogDirsApi = new ApiDefinition<DescribeLogDirsRequest, DescribeLogDirsResponse>({
  key: ApiKey.DESCRIBE_LOG_DIRS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  request: [
    s('topics', '0+', [f('topic', 'string', '0+'), f('partitionIndex', '[]int32', '0+')], { nullable: '0+', default: null }),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('results', '0+', [
      f('errorCode', 'int16', '0+'),
      f('logDir', 'string', '0+'),
      s('topics', '0+', [
        f('name', 'string', '0+'),
        s('partitions', '0+', [
          f('partitionIndex', 'int32', '0+'),
          f('partitionSize', 'int64', '0+'),
          f('offsetLag', 'int64', '0+'),
          f('isFutureKey', 'bool', '0+'),
        ]),
      ]),
    ]),
  ],
  // A failure of the whole request (Kafka's getErrorResponse) has no log dir to put the error in: no results.
  errorResponse: () => ({ throttleTimeMs: 0, results: [] }),
});
