import { currentUser, handle, idParams, pageQuery, parseBody, parseParams, parseQuery, queryEnum, requireUser, AppError } from '@binzip/shared';
import { Router } from 'express';
import { z } from 'zod';
import { boardDetail, categoriesOf, createBoard, deleteBoard, listBoards, myBoards, myLovedBoards, previewBoards, updateBoard } from '../domain/boards';
import { AllCategories, BoardPrefixes, categoryFits, prefixesOf } from '../domain/categories';
import { myComments } from '../domain/comments';
import type { CommunityModels } from '../models';
import { boardBody, previewQuery, requiredQueryEnum, searchText } from './schemas';

const boardIdParams = idParams('boardId');

const listQuery = z.object({
  prefix: requiredQueryEnum(BoardPrefixes),
  category: queryEnum(AllCategories),
  search: searchText,
  order: z.preprocess((v) => (v === '' || v === undefined ? 'RECENT' : v), z.enum(['RECENT', 'POPULAR'])),
  ...pageQuery(8),
});

const ownListQuery = z.object(pageQuery(10));

const categoryQuery = z.object({ name: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(50)) });

/** A category filter that can never match the board type is a client mistake, not an empty result. */
function assertCategoryFits(category: string | undefined, prefixes: Parameters<typeof categoryFits>[1]): void {
  if (category !== undefined && !categoryFits(category, prefixes)) throw AppError.invalid('category 값이 게시판 종류에 맞지 않습니다.');
}

export function boardRoutes(models: CommunityModels): Router {
  const router = Router();

  router.post(
    '/',
    requireUser,
    handle((req) => createBoard(models, currentUser(req), parseBody(req, boardBody))),
  );

  router.get(
    '/preview',
    handle((req) => {
      const query = parseQuery(req, previewQuery);
      // The spec takes `category` only with the INTRO preview; elsewhere it would silently change the result.
      if (query.category !== undefined && query.prefix !== 'INTRO') throw AppError.invalid('category 값은 prefix가 INTRO일 때만 사용할 수 있습니다.');
      assertCategoryFits(query.category, prefixesOf(query.prefix));
      return previewBoards(models, query);
    }),
  );

  router.get(
    '/category',
    handle((req) => categoriesOf(parseQuery(req, categoryQuery).name)),
  );

  router.get(
    '/my',
    requireUser,
    handle((req) => myBoards(models, currentUser(req), parseQuery(req, ownListQuery))),
  );

  router.get(
    '/my/comment',
    requireUser,
    handle((req) => myComments(models, currentUser(req), parseQuery(req, ownListQuery))),
  );

  router.get(
    '/my/love',
    requireUser,
    handle((req) => myLovedBoards(models, currentUser(req), parseQuery(req, ownListQuery))),
  );

  router.get(
    '/',
    handle((req) => {
      const query = parseQuery(req, listQuery);
      assertCategoryFits(query.category, [query.prefix]);
      return listBoards(models, query);
    }),
  );

  router.get(
    '/:boardId',
    handle((req) => boardDetail(models, parseParams(req, boardIdParams).boardId)),
  );

  router.put(
    '/:boardId',
    requireUser,
    handle((req) => {
      const { boardId } = parseParams(req, boardIdParams);
      return updateBoard(models, currentUser(req), boardId, parseBody(req, boardBody));
    }),
  );

  router.delete(
    '/:boardId',
    requireUser,
    handle(async (req) => {
      const { boardId } = parseParams(req, boardIdParams);
      await deleteBoard(models, currentUser(req), boardId);
      return undefined;
    }),
  );

  return router;
}
