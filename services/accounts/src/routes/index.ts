import { operationsDocument, type ApiDocument } from '@binzip/shared';
import { adminOperations } from './admin';
import { agentOperations } from './agents';
import { fieldLabels } from './schemas';
import { userOperations } from './users';

/** Every operation of the service, in mount order. */
export const operations = [...userOperations, ...agentOperations, ...adminOperations];

/** The accounts part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument => operationsDocument(operations, { title: 'binzip accounts', version: '1.0.0' }, fieldLabels);
