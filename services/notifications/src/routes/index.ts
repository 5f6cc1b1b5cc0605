import { operationsDocument, type ApiTags, type ApiDocument } from '@binzip/shared';
import { notificationAdminOperations, notificationOperations } from './notifications';
import { savedSearchOperations } from './saved-searches';
import { fieldLabels } from './schemas';
import { LIVE_STREAM } from './stream';

/** Every operation of the service, in mount order. */
export const operations = [...notificationOperations, ...savedSearchOperations, ...notificationAdminOperations];

/** Routes answered by a long-lived stream rather than an envelope (the gateway keeps them out of its pool). */
export const longLivedRoutes = [LIVE_STREAM];

/** The tags of the service's operations, each with its description in the API document. */
export const apiTags: ApiTags = {
  'admin-stats-notifications': '관리자: 일별 관심 조건 알림 수',
  'saved-searches': '관심 조건: 회원이 저장한 매물 검색 조건 (최대 20개)과 새 매물 알림',
  notifications: '댓글 알림함 (커서 페이지)',
};

/** The notifications part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument => operationsDocument(operations, { title: 'binzip notifications', version: '1.0.0', tags: apiTags }, fieldLabels);
