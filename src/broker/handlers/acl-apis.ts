import { ErrorCode } from '../../common/error-codes';
import { CreateAclsRequest, CreateAclsResponse } from '../../protocol/apis/create-acls';
import { DeleteAclsFilter, DeleteAclsRequest, DeleteAclsResponse } from '../../protocol/apis/delete-acls';
import { DescribeAclsRequest, DescribeAclsResource, DescribeAclsResponse } from '../../protocol/apis/describe-acls';
import {
  AclBinding,
  AclBindingFilter,
  AclOperation,
  AclPermissionType,
  CLUSTER_NAME,
  fromCode,
  patternKey,
  PatternType,
  ResourceType,
} from '../../security/acl-binding';
import { ApiHandler } from '../network/api-handler';
import { authorizeCluster } from './auth-helper';
import { HandlerContext } from './handler-context';

const NO_AUTHORIZER = 'No Authorizer is configured on the broker';

function filterOf(f: DeleteAclsFilter | DescribeAclsRequest, version: number): AclBindingFilter | string {
  const filter: AclBindingFilter = {
    resourceType: fromCode.resourceType(f.resourceTypeFilter),
    name: f.resourceNameFilter,
    patternType: fromCode.patternType(version >= 1 ? f.patternTypeFilter : PatternType.LITERAL),
    principal: f.principalFilter,
    host: f.hostFilter,
    operation: fromCode.operation(f.operation),
    permissionType: fromCode.permissionType(f.permissionType),
  };
  // Kafka's DescribeAclsRequest/DeleteAclsRequest validation.
  if (filter.resourceType === 'UNKNOWN' || filter.patternType === 'UNKNOWN' || filter.operation === 'UNKNOWN' || filter.permissionType === 'UNKNOWN') {
    return 'Filter contain UNKNOWN elements';
  }
  return filter;
}

/**
 * Kafka's handleDescribeAcls: Describe on the cluster; SECURITY_DISABLED without an authorizer; the matching
 * bindings grouped by resource.
 */
export function createDescribeAclsHandler(ctx: HandlerContext): ApiHandler<DescribeAclsRequest, DescribeAclsResponse> {
  return (request, context) => {
    const error = (code: number, message: string | null): DescribeAclsResponse => ({ throttleTimeMs: 0, errorCode: code, errorMessage: message, resources: [] });
    if (!authorizeCluster(ctx, context, 'DESCRIBE')) return error(ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, null);
    if (ctx.authorizer === undefined) return error(ErrorCode.SECURITY_DISABLED.code, NO_AUTHORIZER);
    const filter = filterOf(request, context.header.apiVersion);
    if (typeof filter === 'string') return error(ErrorCode.INVALID_REQUEST.code, filter);
    const resources = new Map<string, DescribeAclsResource>();
    for (const b of ctx.authorizer.acls(filter)) {
      const key = patternKey(b.pattern);
      let resource = resources.get(key);
      if (resource === undefined) {
        resource = { resourceType: ResourceType[b.pattern.resourceType], resourceName: b.pattern.name, patternType: PatternType[b.pattern.patternType], acls: [] };
        resources.set(key, resource);
      }
      resource.acls.push({ principal: b.entry.principal, host: b.entry.host, operation: AclOperation[b.entry.operation], permissionType: AclPermissionType[b.entry.permissionType] });
    }
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, resources: [...resources.values()] };
  };
}

/** Kafka's handleCreateAcls: Alter on the cluster; the CLUSTER-name and empty-name checks; the authorizer's results. */
export function createCreateAclsHandler(ctx: HandlerContext): ApiHandler<CreateAclsRequest, CreateAclsResponse> {
  return async (request, context) => {
    const all = (code: number, message: string | null): CreateAclsResponse => ({ throttleTimeMs: 0, results: request.creations.map(() => ({ errorCode: code, errorMessage: message })) });
    if (!authorizeCluster(ctx, context, 'ALTER')) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, null);
    const authorizer = ctx.authorizer;
    if (authorizer === undefined) return all(ErrorCode.SECURITY_DISABLED.code, `${NO_AUTHORIZER}.`);
    const version = context.header.apiVersion;
    const results: Array<{ errorCode: number; errorMessage: string | null }> = request.creations.map(() => ({ errorCode: 0, errorMessage: null }));
    const valid: Array<{ index: number; binding: AclBinding }> = [];
    request.creations.forEach((c, index) => {
      const binding: AclBinding = {
        pattern: { resourceType: fromCode.resourceType(c.resourceType), name: c.resourceName, patternType: fromCode.patternType(version >= 1 ? c.resourcePatternType : PatternType.LITERAL) },
        entry: { principal: c.principal, host: c.host, operation: fromCode.operation(c.operation), permissionType: fromCode.permissionType(c.permissionType) },
      };
      const invalid =
        binding.pattern.resourceType === 'CLUSTER' && binding.pattern.name !== CLUSTER_NAME
          ? `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`
          : binding.pattern.name.length === 0
            ? 'Invalid empty resource name'
            : undefined;
      if (invalid !== undefined) results[index] = { errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: invalid };
      else valid.push({ index, binding });
    });
    const created = await authorizer.createAcls(valid.map((v) => v.binding));
    created.forEach((r, i) => {
      const v = valid[i];
      if (v !== undefined && r.error !== undefined) results[v.index] = { errorCode: ErrorCode[r.error.code].code, errorMessage: r.error.message };
    });
    return { throttleTimeMs: 0, results };
  };
}

/** Kafka's handleDeleteAcls: Alter on the cluster; each filter's deleted bindings. */
export function createDeleteAclsHandler(ctx: HandlerContext): ApiHandler<DeleteAclsRequest, DeleteAclsResponse> {
  return async (request, context) => {
    const all = (code: number, message: string | null): DeleteAclsResponse => ({ throttleTimeMs: 0, filterResults: request.filters.map(() => ({ errorCode: code, errorMessage: message, matchingAcls: [] })) });
    if (!authorizeCluster(ctx, context, 'ALTER')) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, null);
    const authorizer = ctx.authorizer;
    if (authorizer === undefined) return all(ErrorCode.SECURITY_DISABLED.code, `${NO_AUTHORIZER}.`);
    const version = context.header.apiVersion;
    const filters = request.filters.map((f) => filterOf(f, version));
    const usable = filters.filter((f): f is AclBindingFilter => typeof f !== 'string');
    const deleted = await authorizer.deleteAcls(usable);
    let next = 0;
    return {
      throttleTimeMs: 0,
      filterResults: filters.map((f) => {
        if (typeof f === 'string') return { errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: f, matchingAcls: [] };
        const r = deleted[next++];
        if (r === undefined) return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR.code, errorMessage: null, matchingAcls: [] };
        return {
          errorCode: r.error === undefined ? 0 : ErrorCode[r.error.code].code,
          errorMessage: r.error?.message ?? null,
          matchingAcls: r.deleted.map((b) => ({
            errorCode: 0,
            errorMessage: null,
            resourceType: ResourceType[b.pattern.resourceType],
            resourceName: b.pattern.name,
            patternType: PatternType[b.pattern.patternType],
            principal: b.entry.principal,
            host: b.entry.host,
            operation: AclOperation[b.entry.operation],
            permissionType: AclPermissionType[b.entry.permissionType],
          })),
        };
      }),
    };
  };
}
