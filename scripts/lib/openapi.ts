import type { ApiDocument, ApiExamples } from '@binzip/shared';
import { apiDocumentOf } from '../../services/gateway/src/routes/api-docs';
import { serviceRoutes } from './service-routes';

/**
 * Every service's API document, as its `/openapi.json` serves it. The gateway merges the same documents at run
 * time from the services it proxies to; this offline merge is for `npm run openapi`, client types and tests
 * (services in alphabetical order, so the document does not move when the list of services is reordered).
 */
export const SERVICE_DOCUMENTS: Record<string, () => ApiDocument> = Object.fromEntries(
  serviceRoutes()
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ name, routes }) => [name, () => routes.apiDocument()]),
);

/** With the recorded examples (contracts/examples), or with `examples` (`{}`: none) instead. */
export function buildApiDocument(examples?: ApiExamples): ApiDocument {
  return apiDocumentOf(
    Object.values(SERVICE_DOCUMENTS).map((document) => document()),
    examples,
  );
}
