import { operationsOf } from '@binzip/shared';
import type { HousesContext } from '../domain/context';
import { scrapHouse, unscrapHouse } from '../domain/interactions';
import { scrapList } from '../domain/queries';
import { HOUSE_ANSWERS, scrapsKey } from '../cache-keys';
import { houseIdData, houseListPageableSchema, houseParams, scrapListQuery } from './schemas';

const operation = operationsOf<HousesContext>();
const tags = ['scraps'];

/** A member's scraps: the list (`/api/v1/houses/scrap`, before `/api/v1/houses/{houseId}`) and /api/v1/scraps. */
export const scrapOperations = [
  operation({
    method: 'get',
    path: '/api/v1/houses/scrap',
    operationId: 'listScrappedHouses',
    summary: '내 스크랩 목록 (최근 스크랩순)',
    tags,
    access: 'user',
    query: scrapListQuery,
    data: houseListPageableSchema,
    cached: HOUSE_ANSWERS,
    cachedPerMember: true,
    dependsOn: ({ caller }) => [scrapsKey(caller.userId)],
    handle: (ctx, { caller, query }) => scrapList(ctx, caller, query),
  }),
  operation({
    method: 'put',
    path: '/api/v1/scraps/{houseId}',
    operationId: 'scrapHouse',
    summary: '빈집 게시글 스크랩',
    tags,
    access: 'user',
    params: houseParams,
    data: houseIdData,
    errors: ['C0001', 'H0002'],
    changes: ({ caller }) => [scrapsKey(caller.userId)],
    handle: (ctx, { caller, params }) => scrapHouse(ctx, caller, params),
  }),
  operation({
    method: 'delete',
    path: '/api/v1/scraps/{houseId}',
    operationId: 'unscrapHouse',
    summary: '빈집 게시글 스크랩 취소',
    tags,
    access: 'user',
    params: houseParams,
    errors: ['C0001'],
    changes: ({ caller }) => [scrapsKey(caller.userId)],
    handle: (ctx, { caller, params }) => unscrapHouse(ctx, caller, params),
  }),
];
