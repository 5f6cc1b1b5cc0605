import { operationsOf } from '@binzip/shared';
import type { RecordsContext } from '../domain/context';
import { readTemplate, saveTemplate } from '../domain/templates';
import { categoryTemplateSchema, saveTemplateBody, templateParams } from './schemas';

const operation = operationsOf<RecordsContext>();
const tags = ['record-templates'];

/** /api/v1/record_category: one template per record category. */
export const templateOperations = [
  operation({
    method: 'post',
    path: '/api/v1/record_category/template',
    operationId: 'saveRecordTemplate',
    summary: '카테고리 템플릿 저장 (카테고리마다 하나, 덮어씀)',
    tags,
    access: 'admin',
    body: saveTemplateBody,
    handle: (ctx, { caller, body }) => saveTemplate(ctx, caller, body),
  }),
  operation({
    method: 'get',
    path: '/api/v1/record_category/template/{category}',
    operationId: 'getRecordTemplate',
    summary: '카테고리 템플릿 (없으면 빈 문자열)',
    tags,
    access: 'admin',
    params: templateParams,
    data: categoryTemplateSchema,
    handle: (ctx, { params }) => readTemplate(ctx, params),
  }),
];
