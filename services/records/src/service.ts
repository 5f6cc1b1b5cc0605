import { defineService, serviceApp, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import { recordCommentCreated } from '@binzip/events';
import type { Express } from 'express';
import { readConfig } from './config';
import { recordsOutbox } from './events';
import { initModels, recordsModels } from './models';
import { apiDocument, operations } from './routes';
import { fieldLabels } from './routes/schemas';

/** The records service, declared once: `runService(service)` (main.ts) and the test kit build it from here. */
export const service = defineService({
  name: 'records',
  readConfig,
  userProjection: true,
  models: recordsModels,
  initModels,
  context: serviceContext,
  operations,
  apiDocument,
  fieldLabels,
  outbox: recordsOutbox,
  // A record comment (any instance's) changes its record's answers.
  cache: { events: [recordCommentCreated.filter] },
});

/** The app from deps (tests). */
export const buildApp = (deps: ServiceAppDeps): Express => serviceApp(service, deps);
