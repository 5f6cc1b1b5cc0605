import { operationsOf } from '@binzip/shared';
import type { HousesContext } from '../domain/context';
import { scrapHouse, unscrapHouse } from '../domain/interactions';
import { scrapList } from '../domain/queries';
import { houseIdData, houseListPageableSchema, houseParams, scrapListQuery } from './schemas';

const operation = operationsOf<HousesContext>();
const tags = ['scraps'];

/**
 * A scrap is a document of its own and shows in a member's own answers only: as `isScraped` in his detail
 * (`listingDetail`, never kept) and in his scrap list, kept per member under `scraps:<userId>`; scrapping and
 * unscrapping change that key alone. The list shows listings too, so every listing write (which declares nothing)
 * forgets it like every other houses answer.
 */
const scrapsKey = (userId: number): string => `scraps:${userId}`;

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
    cached: 'houses',
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
