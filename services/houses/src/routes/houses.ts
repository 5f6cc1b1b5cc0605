import { operationsOf, type CacheKeys } from '@binzip/shared';
import type { HousesContext } from '../domain/context';
import { reportHouse } from '../domain/interactions';
import { completeDeal, createListing, listingDetail, removeListing, updateListing } from '../domain/listings';
import { draftList, ownList, publicList } from '../domain/queries';
import {
  houseDetailSchema,
  houseIdData,
  houseListPageableSchema,
  houseListPageSchema,
  houseParams,
  listingBody,
  ownDraftsQuery,
  ownListPageSchema,
  ownListQuery,
  publicListQuery,
  reportBody,
} from './schemas';

const operation = operationsOf<HousesContext>();
const tags = ['houses'];

/**
 * The keys of a public list or detail: none of its own. Every houses write but a scrap (listings, deals, reports,
 * pictures) declares nothing and so forgets every answer, nicknames too; a scrap changes only its member's scrap
 * list (`scrapsKey`), which these answers do not show. A listing write that declares keys one day must give
 * these answers keys as well.
 */
const WHAT_EVERY_LISTING_WRITE_CHANGES: CacheKeys = [];

const listOwnHouses = operation({
  method: 'get',
  path: '/api/v1/houses/agent',
  operationId: 'listOwnHouses',
  summary: '내가 작성한 빈집 목록 (상태별 개수)',
  tags,
  access: 'user',
  query: ownListQuery,
  data: ownListPageSchema,
  handle: (ctx, { caller, query }) => ownList(ctx, caller, query),
});

/** /api/v1/houses: listings. The fixed paths come before `{houseId}` so it never swallows them. */
export const houseOperations = [
  operation({
    method: 'get',
    path: '/api/v1/houses/tmp-save',
    operationId: 'listHouseDrafts',
    summary: '내 임시저장 목록',
    tags,
    access: 'user',
    query: ownDraftsQuery,
    data: houseListPageableSchema,
    handle: (ctx, { caller, query }) => draftList(ctx, caller, query),
  }),
  listOwnHouses,
  // The original web client's name for the same list ("내 매물 관리"), documented under its own name as released.
  {
    ...listOwnHouses,
    path: '/api/v1/houses/my',
    operationId: 'listMyHouses',
    summary: '내 매물 관리: /houses/agent와 같은 목록 (원래 웹 클라이언트의 경로)',
  },
  operation({
    method: 'get',
    path: '/api/v1/houses/user-scrap/{houseId}',
    operationId: 'getHouseForMember',
    summary: '빈집 게시글 상세 (로그인 회원, 스크랩 여부 포함)',
    tags,
    access: 'user',
    params: houseParams,
    data: houseDetailSchema,
    errors: ['C0001'],
    handle: (ctx, { caller, params }) => listingDetail(ctx, caller, params),
  }),
  operation({
    method: 'put',
    path: '/api/v1/houses/report/{houseId}',
    operationId: 'reportHouse',
    summary: '빈집 게시글 신고 (신고되면 작성자와 관리자만 볼 수 있음)',
    tags,
    access: 'user',
    params: houseParams,
    body: reportBody,
    errors: ['C0001', 'H0001', 'H0003'],
    handle: (ctx, { caller, params, body }) => reportHouse(ctx, caller, { ...params, ...body }),
  }),
  operation({
    method: 'put',
    path: '/api/v1/houses/status/{houseId}',
    operationId: 'completeHouseDeal',
    summary: '거래 완료 (작성자, ONGOING -> COMPLETED)',
    tags,
    access: 'user',
    params: houseParams,
    data: houseIdData,
    errors: ['C0001', 'C0003', 'H0004'],
    handle: (ctx, { caller, params }) => completeDeal(ctx, caller, params),
  }),
  operation({
    method: 'post',
    path: '/api/v1/houses',
    operationId: 'createHouse',
    summary: '빈집 게시글 작성 / 임시저장',
    description: '중개사와 관리자의 저장은 바로 공개(ONGOING), 일반 회원의 저장은 승인 대기(APPLYING).',
    tags,
    access: 'user',
    body: listingBody,
    data: houseIdData,
    errors: ['H0000'],
    handle: (ctx, { caller, body }) => createListing(ctx, caller, body),
  }),
  operation({
    method: 'get',
    path: '/api/v1/houses',
    operationId: 'listHouses',
    summary: '빈집 목록 (필터, 지역어, 최신 수정순)',
    tags,
    access: 'optional',
    query: publicListQuery,
    data: houseListPageSchema,
    cached: 'houses',
    dependsOn: () => WHAT_EVERY_LISTING_WRITE_CHANGES,
    handle: (ctx, { query }) => publicList(ctx, query),
  }),
  operation({
    method: 'get',
    path: '/api/v1/houses/{houseId}',
    operationId: 'getHouse',
    summary: '빈집 게시글 상세',
    tags,
    access: 'optional',
    params: houseParams,
    data: houseDetailSchema,
    errors: ['C0001'],
    cached: 'houses',
    dependsOn: () => WHAT_EVERY_LISTING_WRITE_CHANGES,
    handle: (ctx, { caller, params }) => listingDetail(ctx, caller, params),
  }),
  operation({
    method: 'put',
    path: '/api/v1/houses/{houseId}',
    operationId: 'updateHouse',
    summary: '빈집 게시글 수정 (작성자)',
    tags,
    access: 'user',
    params: houseParams,
    body: listingBody,
    data: houseIdData,
    errors: ['C0001', 'C0003', 'H0000'],
    handle: (ctx, { caller, params, body }) => updateListing(ctx, caller, { ...params, listing: body }),
  }),
  operation({
    method: 'delete',
    path: '/api/v1/houses/{houseId}',
    operationId: 'deleteHouse',
    summary: '빈집 게시글 삭제 (작성자 또는 관리자)',
    tags,
    access: 'user',
    params: houseParams,
    errors: ['C0001', 'C0003'],
    handle: (ctx, { caller, params }) => removeListing(ctx, caller, params),
  }),
];
