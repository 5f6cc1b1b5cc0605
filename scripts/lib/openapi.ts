import type { ApiDocument, ApiExamples } from '@binzip/shared';
import { apiDocumentOf } from '../../services/gateway/src/routes/api-docs';
import { apiDocument as accountsDocument } from '../../services/accounts/src/routes';
import { apiDocument as communityDocument } from '../../services/community/src/routes';
import { apiDocument as housesDocument } from '../../services/houses/src/routes';
import { apiDocument as notificationsDocument } from '../../services/notifications/src/routes';
import { apiDocument as recordsDocument } from '../../services/records/src/routes';

/**
 * Every service's API document, as its `/openapi.json` serves it. The gateway merges the same documents at run
 * time from the services it proxies to; this offline merge is for `npm run openapi`, client types and tests.
 */
export const SERVICE_DOCUMENTS: Record<string, () => ApiDocument> = {
  accounts: accountsDocument,
  community: communityDocument,
  houses: housesDocument,
  notifications: notificationsDocument,
  records: recordsDocument,
};

/** With the recorded examples (contracts/examples), or with `examples` (`{}`: none) instead. */
export function buildApiDocument(examples?: ApiExamples): ApiDocument {
  return apiDocumentOf(
    Object.values(SERVICE_DOCUMENTS).map((document) => document()),
    examples,
  );
}
