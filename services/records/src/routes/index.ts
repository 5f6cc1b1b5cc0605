import { operationsDocument, type ApiTags, type ApiDocument } from '@binzip/shared';
import { commentOperations } from './comments';
import { recordOperations } from './records';
import { reviewOperations } from './reviews';
import { fieldLabels } from './schemas';
import { templateOperations } from './templates';

/** Every operation of the service, in mount order. */
export const operations = [...recordOperations, ...reviewOperations, ...commentOperations, ...templateOperations];

/** The tags of the service's operations, each with its description in the API document. */
export const apiTags: ApiTags = {
  records: '팀 기록: 글 목록, 상세, 작성, 수정, 삭제',
  'record-reviews': '팀 기록의 검토',
  'record-comments': '팀 기록의 댓글과 답글',
  'record-templates': '팀 기록 양식',
};

/** The records part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument => operationsDocument(operations, { title: 'binzip records', version: '1.0.0', tags: apiTags }, fieldLabels);
