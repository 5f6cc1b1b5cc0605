import { existsSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '@binzip/shared/core';
import express, { Router, type Response } from 'express';
import { consolePolicy } from './page-policies';

/** Vite names every file under assets/ by its content hash, so a browser may keep them for good. */
const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';
/** index.html names the current assets: it must be revalidated on every visit to pick up a new build. */
const INDEX_CACHE = 'no-cache';

/**
 * The administrators' console (admin-console/dist, built for the base path /admin/) as static files:
 * `/admin`, `/admin/` and any unknown `/admin/<screen>` path answer index.html (the app routes by path);
 * a missing asset under /admin/assets/ stays a 404 envelope rather than HTML a browser would try to run.
 * Without a build every /admin path is a 404 envelope (C0001), so the API keeps working.
 */
export function adminConsoleRouter(dir: string): Router {
  const router = Router();
  router.use('/admin', consolePolicy);
  const indexFile = path.join(dir, 'index.html');
  if (!existsSync(indexFile)) {
    router.use('/admin', (_req, _res, next) => next(AppError.notFound()));
    return router;
  }

  router.use('/admin', (_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  router.use(
    '/admin',
    express.static(dir, {
      index: false,
      redirect: false,
      fallthrough: true,
      setHeaders: (res, filePath) => {
        const inAssets = path.relative(path.join(dir, 'assets'), filePath).split(path.sep)[0] !== '..';
        res.setHeader('Cache-Control', inAssets ? HASHED_ASSET_CACHE : INDEX_CACHE);
      },
    }),
  );
  router.get(/^\/admin\/assets(\/.*)?$/, (_req, _res, next) => next(AppError.notFound()));
  const sendIndex = (res: Response) => res.setHeader('Cache-Control', INDEX_CACHE).sendFile(indexFile);
  router.get(/^\/admin(\/.*)?$/, (_req, res) => sendIndex(res));
  return router;
}
