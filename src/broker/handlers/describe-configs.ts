import { ErrorCode } from '../../common/error-codes';
import { topicNameError } from '../../common/topic';
import { DescribeConfigsRequest, DescribeConfigsResourceConfig, DescribeConfigsResponse } from '../../protocol/apis/describe-configs';
import { ApiHandler } from '../network/api-handler';
import { HandlerContext } from './handler-context';

const TOPIC = 2;
const BROKER = 4;
/** DescribeConfigs v1+ config sources. */
const SOURCE = { TOPIC_CONFIG: 1, STATIC_BROKER_CONFIG: 4, DEFAULT_CONFIG: 5 } as const;

/**
 * DescribeConfigs for topics (overrides from /config/topics over broker defaults) and for this broker (its
 * static configuration). Sensitive values are hidden as Kafka hides them.
 */
export function createDescribeConfigsHandler(ctx: HandlerContext): ApiHandler<DescribeConfigsRequest, DescribeConfigsResponse> {
  return async (request) => {
    const results: DescribeConfigsResponse['results'] = [];
    for (const r of request.resources) {
      const wanted = (name: string): boolean => r.configurationKeys === null || r.configurationKeys.includes(name);
      if (r.resourceType === TOPIC) {
        // Kafka's describeConfigs starts with Topic.validate.
        const nameError = topicNameError(r.resourceName);
        if (nameError !== undefined) {
          results.push({ errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION.code, errorMessage: nameError, resourceType: r.resourceType, resourceName: r.resourceName, configs: [] });
          continue;
        }
        const overrides = await ctx.adminZk.getTopicConfig(r.resourceName);
        if (!(await ctx.adminZk.topicExists(r.resourceName))) {
          results.push({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, errorMessage: `Topic ${r.resourceName} does not exist.`, resourceType: r.resourceType, resourceName: r.resourceName, configs: [] });
          continue;
        }
        const config = await ctx.logConfigFor(r.resourceName);
        const configs: DescribeConfigsResourceConfig[] = Object.entries(config.originals)
          .filter(([name]) => wanted(name))
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([name, value]) => {
            const isOverride = overrides.has(name);
            return {
              name,
              value,
              readOnly: false,
              isDefault: !isOverride,
              configSource: isOverride ? SOURCE.TOPIC_CONFIG : SOURCE.DEFAULT_CONFIG,
              isSensitive: false,
              synonyms: request.includeSynonyms ? [{ name, value, source: isOverride ? SOURCE.TOPIC_CONFIG : SOURCE.DEFAULT_CONFIG }] : [],
            };
          });
        results.push({ errorCode: ErrorCode.NONE.code, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs });
      } else if (r.resourceType === BROKER && (r.resourceName === '' || r.resourceName === String(ctx.brokerId))) {
        const configs: DescribeConfigsResourceConfig[] = [...ctx.config.values.keys()]
          .filter(wanted)
          .sort()
          .map((name) => {
            const sensitive = /password|secret/.test(name);
            const raw = ctx.config.values.get(name);
            const value = sensitive || raw === null || raw === undefined ? null : Array.isArray(raw) ? raw.join(',') : String(raw);
            return { name, value, readOnly: true, isDefault: false, configSource: SOURCE.STATIC_BROKER_CONFIG, isSensitive: sensitive, synonyms: [] };
          });
        results.push({ errorCode: ErrorCode.NONE.code, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs });
      } else {
        results.push({ errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: `Unsupported resource type ${r.resourceType} or name ${r.resourceName}`, resourceType: r.resourceType, resourceName: r.resourceName, configs: [] });
      }
    }
    return { throttleTimeMs: 0, results };
  };
}
