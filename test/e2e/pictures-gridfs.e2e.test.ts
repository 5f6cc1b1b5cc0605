/**
 * Picture uploads through the gateway on the default store: GridFS in each service's own database.
 * Needs the built processes (`npx tsc -b`).
 */
import { picturesSuite } from '../support/pictures';

jest.setTimeout(120_000);

picturesSuite('picgridfs', () => ({ MEDIA_STORE: 'gridfs' }));
