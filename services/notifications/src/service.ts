import { defineService, serviceApp, serviceContext, type ServiceAppDeps } from '@binzip/shared';
import type { Express } from 'express';
import { readConfig } from './config';
import { notificationsConsumers } from './events';
import { initModels, notificationsModels } from './models';
import { apiDocument, operations } from './routes';
import { fieldLabels } from './routes/schemas';

/**
 * The notifications service, declared once: `runService(service)` (main.ts) and the test kit build it from here.
 * Members' inboxes are cached per member; the consumers declare the inboxes they change (nicknames: the user
 * projection's announcements forget everything).
 */
export const service = defineService({
  name: 'notifications',
  readConfig,
  userProjection: true,
  models: notificationsModels,
  initModels,
  context: serviceContext,
  operations,
  apiDocument,
  fieldLabels,
  consumes: notificationsConsumers,
  cache: { events: [] },
});

/** The app from deps (tests). */
export const buildApp = (deps: ServiceAppDeps): Express => serviceApp(service, deps);
