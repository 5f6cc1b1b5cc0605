import { defineService, serviceApp, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import { createPictures, defaultMediaSettings, startPictureSweeper, type MediaSettings } from '@binzip/shared/media';
import type { Express } from 'express';
import { BOARD_ANSWERS, commentCreatedEvents } from './cache-keys';
import { readConfig } from './config';
import { sanitizeStoredBoards } from './domain/boards';
import { referencedPictures } from './domain/pictures';
import { communityOutbox } from './events';
import { communityModels, initModels, type CommunityModels } from './models';
import { apiDocument, operations, PICTURES_PATH, type CommunityOperationContext } from './routes';
import { fieldLabels } from './routes/schemas';

export interface AppDeps extends ServiceAppDeps {
  /** The pictures settings (`MEDIA_*`); every default when absent (GridFS in the service's database). */
  media?: MediaSettings;
}

/** The community service, declared once: `runService(service)` (main.ts) and the test kit build it from here. */
export const service = defineService({
  name: 'community',
  readConfig,
  userProjection: true,
  namesShownBy: BOARD_ANSWERS,
  models: communityModels,
  initModels,
  deps: (config) => ({ media: config }),
  context: (models: CommunityModels, deps: AppDeps): CommunityOperationContext => ({
    ...serviceContext(models, deps),
    pictures: createPictures({
      connection: deps.connection,
      settings: deps.media ?? defaultMediaSettings(),
      service: 'community',
      mountPath: PICTURES_PATH,
      logger: deps.logger,
      now: deps.now ?? (() => new Date()),
    }),
  }),
  operations,
  apiDocument,
  fieldLabels,
  outbox: communityOutbox,
  // Comments change their board's count and details (nicknames: the user projection announces its changes itself).
  cache: { events: [commentCreatedEvents] },
  startup: async (ctx, { config, connection, logger }) => {
    await sanitizeStoredBoards(ctx);
    const stopSweeper = startPictureSweeper({
      connection,
      settings: config,
      service: 'community',
      logger,
      now: ctx.now,
      referenced: (deletedSince) => referencedPictures(ctx, deletedSince),
    });
    return { closers: [stopSweeper] };
  },
});

/** The app from deps (tests). */
export const buildApp = (deps: AppDeps): Express => serviceApp(service, deps);
