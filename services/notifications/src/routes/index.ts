import { operationsDocument, type ApiDocument } from '@binzip/shared';
import { notificationAdminOperations, notificationOperations } from './notifications';
import { savedSearchOperations } from './saved-searches';
import { fieldLabels } from './schemas';

/** Every operation of the service, in mount order. */
export const operations = [...notificationOperations, ...savedSearchOperations, ...notificationAdminOperations];

/** The notifications part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument => operationsDocument(operations, { title: 'binzip notifications', version: '1.0.0' }, fieldLabels);
