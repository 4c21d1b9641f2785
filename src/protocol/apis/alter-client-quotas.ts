import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';
import { ClientQuotaEntityData } from './describe-client-quotas';

/*
 * AlterClientQuotas (key 49, KIP-546), v0-1: Kafka 2.8's whole window; v1 = v0 made flexible (KIP-482). Each entry
 * names an entity (its components: "user", "client-id" or "ip", a null name for the default) and the quota keys
 * to set (value) or remove (remove=true). The errors live per entry.
 */
export interface AlterClientQuotasOp {
  key: string;
  value: number;
  remove: boolean;
}

export interface AlterClientQuotasEntry {
  entity: ClientQuotaEntityData[];
  ops: AlterClientQuotasOp[];
}

export interface AlterClientQuotasRequest {
  entries: AlterClientQuotasEntry[];
  validateOnly: boolean;
}

export interface AlterClientQuotasEntryResponse {
  errorCode: number;
  errorMessage: string | null;
  entity: ClientQuotaEntityData[];
}

export interface AlterClientQuotasResponse {
  throttleTimeMs: number;
  entries: AlterClientQuotasEntryResponse[];
}

const entity = s('entity', '0+', [f('entityType', 'string', '0+'), f('entityName', 'string', '0+', { nullable: '0+' })]);

export const AlterClientQuotasApi = new ApiDefinition<AlterClientQuotasRequest, AlterClientQuotasResponse>({
  key: ApiKey.ALTER_CLIENT_QUOTAS,
  minVersion: 0,
  maxVersion: 1,
  flexibleFrom: 1,
  // AlterClientQuotasRequest.getErrorResponse: every entry gets the error.
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    entries: request.entries.map((e) => ({ errorCode, errorMessage: null, entity: e.entity })),
  }),
  request: [s('entries', '0+', [entity, s('ops', '0+', [f('key', 'string', '0+'), f('value', 'float64', '0+'), f('remove', 'bool', '0+')])]), f('validateOnly', 'bool', '0+')],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('entries', '0+', [f('errorCode', 'int16', '0+'), f('errorMessage', 'string', '0+', { nullable: '0+', default: null }), entity]),
  ],
});
