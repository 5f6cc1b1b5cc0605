import { operationsDocument, type ApiDocument } from '@binzip/shared';
import { notificationAdminOperations, notificationOperations } from './notifications';
import { savedSearchOperations } from './saved-searches';
import { fieldLabels } from './schemas';
import { LIVE_STREAM } from './stream';

/** Every operation of the service, in mount order. */
export const operations = [...notificationOperations, ...savedSearchOperations, ...notificationAdminOperations];

/** Routes answered by a long-lived stream rather than an envelope (the gateway keeps them out of its pool). */
export const longLivedRoutes = [LIVE_STREAM];

/** The notifications part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument => operationsDocument(operations, { title: 'binzip notifications', version: '1.0.0' }, fieldLabels);
