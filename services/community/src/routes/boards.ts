import { currentUser, handle, parseBody, parseParams, parseQuery, requireUser, RESPONSE_CACHE_TTL_MS, type ResponseCache } from '@binzip/shared';
import { Router } from 'express';
import { boardDetail, categoriesOf, createBoard, deleteBoard, listBoards, myBoards, myLovedBoards, previewBoards, updateBoard } from '../domain/boards';
import { myComments } from '../domain/comments';
import type { CommunityContext } from '../domain/context';
import { boardBody, boardParams, categoryQuery, listQuery, ownListQuery, previewQuery } from './schemas';

/** /api/v1/boards */
export function boardRoutes(ctx: CommunityContext, cache: ResponseCache): Router {
  const router = Router();
  const cached = cache.route('boards', RESPONSE_CACHE_TTL_MS.boards);

  router.post(
    '/',
    requireUser,
    handle((req) => createBoard(ctx, currentUser(req), parseBody(req, boardBody))),
  );

  router.get(
    '/preview',
    cached,
    handle((req) => previewBoards(ctx, parseQuery(req, previewQuery))),
  );

  router.get(
    '/category',
    cache.route('categories', RESPONSE_CACHE_TTL_MS.categories),
    handle((req) => categoriesOf(parseQuery(req, categoryQuery))),
  );

  router.get(
    '/my',
    requireUser,
    handle((req) => myBoards(ctx, currentUser(req), parseQuery(req, ownListQuery))),
  );

  router.get(
    '/my/comment',
    requireUser,
    handle((req) => myComments(ctx, currentUser(req), parseQuery(req, ownListQuery))),
  );

  router.get(
    '/my/love',
    requireUser,
    handle((req) => myLovedBoards(ctx, currentUser(req), parseQuery(req, ownListQuery))),
  );

  router.get(
    '/',
    cached,
    handle((req) => listBoards(ctx, parseQuery(req, listQuery))),
  );

  router.get(
    '/:boardId',
    cached,
    handle((req) => boardDetail(ctx, parseParams(req, boardParams))),
  );

  router.put(
    '/:boardId',
    requireUser,
    handle((req) => updateBoard(ctx, currentUser(req), { ...parseParams(req, boardParams), ...parseBody(req, boardBody) })),
  );

  router.delete(
    '/:boardId',
    requireUser,
    handle(async (req) => {
      await deleteBoard(ctx, currentUser(req), parseParams(req, boardParams));
      return undefined;
    }),
  );

  return router;
}
