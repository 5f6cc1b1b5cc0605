import { operationsDocument, type ApiDocument } from '@binzip/shared';
import { registerPictureOperations } from '@binzip/shared/media';
import { adminOperations } from './admin';
import { houseOperations } from './houses';
import { fieldLabels } from './schemas';
import { scrapOperations } from './scraps';

/**
 * Every operation of the service, in mount order: the lists whose fixed `/api/v1/houses/...` paths must come
 * before `/api/v1/houses/{houseId}` go first.
 */
export const operations = [...scrapOperations, ...adminOperations, ...houseOperations];

/** The houses part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument =>
  operationsDocument(operations, { title: 'binzip houses', version: '1.0.0' }, fieldLabels, (registry) =>
    registerPictureOperations(registry, { path: '/api/v1/houses/images', operationPrefix: 'House', what: '빈집' }),
  );
