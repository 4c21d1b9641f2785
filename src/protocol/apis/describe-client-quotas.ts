import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeClientQuotas (key 48, KIP-546), v0-1: Kafka 2.8's whole window; v1 = v0 made flexible (KIP-482). Each
 * filter component names an entity type ("user", "client-id", "ip") and a match type: EXACT 0 (the entity named
 * by `match`), DEFAULT 1 (the default entity), SPECIFIED 2 (any named or default entity of the type). `strict`
 * leaves out entities with components the filter does not name. The error lives at the top level (entries null).
 */
export const ClientQuotaMatchType = { EXACT: 0, DEFAULT: 1, SPECIFIED: 2 } as const;

export interface DescribeClientQuotasComponent {
  entityType: string;
  matchType: number;
  match: string | null;
}

export interface DescribeClientQuotasRequest {
  components: DescribeClientQuotasComponent[];
  strict: boolean;
}

export interface ClientQuotaEntityData {
  entityType: string;
  /** null: the default entity of the type. */
  entityName: string | null;
}

export interface DescribeClientQuotasEntry {
  entity: ClientQuotaEntityData[];
  values: { key: string; value: number }[];
}

export interface DescribeClientQuotasResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  entries: DescribeClientQuotasEntry[] | null;
}

export const DescribeClientQuotasApi = new ApiDefinition<DescribeClientQuotasRequest, DescribeClientQuotasResponse>({
  key: ApiKey.DESCRIBE_CLIENT_QUOTAS,
  minVersion: 0,
  maxVersion: 1,
  flexibleFrom: 1,
  // DescribeClientQuotasRequest.getErrorResponse: the error at the top, no entries.
  errorResponse: (_request, _version, errorCode) => ({ throttleTimeMs: 0, errorCode, errorMessage: null, entries: null }),
  request: [
    s('components', '0+', [f('entityType', 'string', '0+'), f('matchType', 'int8', '0+'), f('match', 'string', '0+', { nullable: '0+' })]),
    f('strict', 'bool', '0+'),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
    s(
      'entries',
      '0+',
      [
        s('entity', '0+', [f('entityType', 'string', '0+'), f('entityName', 'string', '0+', { nullable: '0+' })]),
        s('values', '0+', [f('key', 'string', '0+'), f('value', 'float64', '0+')]),
      ],
      { nullable: '0+' },
    ),
  ],
});
