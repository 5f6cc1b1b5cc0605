import { operationsOf } from '@binzip/shared';
import { z } from 'zod';
import type { NotificationsContext } from '../domain/context';
import { createSavedSearch, deleteSavedSearch, listSavedSearches, updateSavedSearch } from '../domain/saved-searches';
import { savedSearchBody, savedSearchItemSchema, savedSearchParams } from './schemas';

const operation = operationsOf<NotificationsContext>();
const tags = ['saved-searches'];

/** /api/v1/saved-searches: a member's saved searches and their alerts (issue 38). */
export const savedSearchOperations = [
  operation({
    method: 'post',
    path: '/api/v1/saved-searches',
    operationId: 'createSavedSearch',
    summary: '관심 조건 저장 (최대 20개)',
    tags,
    access: 'user',
    body: savedSearchBody,
    data: z.number().int().meta({ description: '관심 조건 id' }),
    handle: (ctx, { caller, body }) => createSavedSearch(ctx, caller, body),
  }),
  operation({
    method: 'get',
    path: '/api/v1/saved-searches',
    operationId: 'listSavedSearches',
    summary: '내 관심 조건 목록 (저장한 순)',
    tags,
    access: 'user',
    data: z.array(savedSearchItemSchema),
    handle: (ctx, { caller }) => listSavedSearches(ctx, caller),
  }),
  operation({
    method: 'put',
    path: '/api/v1/saved-searches/{savedSearchId}',
    operationId: 'updateSavedSearch',
    summary: '관심 조건 수정 (전체 교체)',
    tags,
    access: 'user',
    params: savedSearchParams,
    body: savedSearchBody,
    data: z.number().int().meta({ description: '관심 조건 id' }),
    errors: ['C0001', 'C0003'],
    handle: (ctx, { caller, params, body }) => updateSavedSearch(ctx, caller, { savedSearchId: params.savedSearchId, search: body }),
  }),
  operation({
    method: 'delete',
    path: '/api/v1/saved-searches/{savedSearchId}',
    operationId: 'deleteSavedSearch',
    summary: '관심 조건 삭제',
    tags,
    access: 'user',
    params: savedSearchParams,
    data: z.number().int().meta({ description: '관심 조건 id' }),
    errors: ['C0001', 'C0003'],
    handle: (ctx, { caller, params }) => deleteSavedSearch(ctx, caller, params),
  }),
];
