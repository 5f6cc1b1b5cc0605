/**
 * Picture uploads through the gateway on the default store: GridFS in each service's own database.
 * Needs the built processes (`npx tsc -b`).
 */
import { picturesSuite } from '../support/pictures';

jest.setTimeout(120_000);

picturesSuite('picgridfs', {
  env: () => ({ MEDIA_STORE: 'gridfs' }),
  holds: async (e2e, service, key) => (await (await e2e.db(service)).collection('pictures.files').countDocuments({ filename: key })) > 0,
});
