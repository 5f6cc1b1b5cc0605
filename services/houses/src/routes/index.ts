import { operationsDocument, type AnyOperation, type ApiDocument } from '@binzip/shared';
import { pictureOperations, type Pictures } from '@binzip/shared/media';
import type { HousesContext } from '../domain/context';
import { adminOperations } from './admin';
import { houseOperations } from './houses';
import { fieldLabels } from './schemas';
import { scrapOperations } from './scraps';

/** Where listing pictures are uploaded and served. */
export const PICTURES_PATH = '/api/v1/houses/images';

/** What the operations run with: the domain's context and the service's pictures. */
export type HousesOperationContext = HousesContext & { readonly pictures: Pictures };

/**
 * Every operation of the service, in mount order: the lists whose fixed `/api/v1/houses/...` paths must come
 * before `/api/v1/houses/{houseId}` go first.
 */
export const operations: AnyOperation<HousesOperationContext>[] = [
  ...pictureOperations<HousesOperationContext>({ path: PICTURES_PATH, operationPrefix: 'House', what: '빈집', pictures: (ctx) => ctx.pictures }),
  ...scrapOperations,
  ...adminOperations,
  ...houseOperations,
];

/** The houses part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument => operationsDocument(operations, { title: 'binzip houses', version: '1.0.0' }, fieldLabels);
