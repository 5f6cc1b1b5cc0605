import { operationsDocument, type ApiDocument } from '@binzip/shared';
import { commentOperations } from './comments';
import { recordOperations } from './records';
import { reviewOperations } from './reviews';
import { fieldLabels } from './schemas';
import { templateOperations } from './templates';

/** Every operation of the service, in mount order. */
export const operations = [...recordOperations, ...reviewOperations, ...commentOperations, ...templateOperations];

/** The records part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument => operationsDocument(operations, { title: 'binzip records', version: '1.0.0' }, fieldLabels);
