import { operationsDocument, type ApiTags, type AnyOperation, type ApiDocument } from '@binzip/shared';
import { PICTURE_TAGS, pictureOperations, type Pictures } from '@binzip/shared/media';
import type { HousesContext } from '../domain/context';
import { adminOperations } from './admin';
import { houseOperations } from './houses';
import { fieldLabels } from './schemas';
import { scrapOperations } from './scraps';

/** Where listing pictures are uploaded and served. */
export const PICTURES_PATH = '/api/v1/houses/images';

/** What the operations run with: the domain's context and the service's pictures. */
export type HousesOperationContext = HousesContext & { readonly pictures: Pictures };

/**
 * Every operation of the service, in mount order: the lists whose fixed `/api/v1/houses/...` paths must come
 * before `/api/v1/houses/{houseId}` go first.
 */
export const operations: AnyOperation<HousesOperationContext>[] = [
  ...pictureOperations<HousesOperationContext>({ path: PICTURES_PATH, operationPrefix: 'House', what: '빈집', pictures: (ctx) => ctx.pictures }),
  ...scrapOperations,
  ...adminOperations,
  ...houseOperations,
];

/** The tags of the service's operations, each with its description in the API document. */
export const apiTags: ApiTags = {
  houses: '빈집 매물: 목록, 상세, 작성과 임시저장, 수정, 신고, 거래 완료',
  scraps: '빈집 매물 스크랩',
  'house-approval': '관리자: 일반 회원 매물의 승인 대기열',
  'admin-reports': '관리자: 신고된 매물 처리',
  'admin-stats-houses': '관리자: 매물 통계',
  ...PICTURE_TAGS,
};

/** The houses part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument => operationsDocument(operations, { title: 'binzip houses', version: '1.0.0', tags: apiTags }, fieldLabels);
