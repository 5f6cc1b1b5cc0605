/** The parts of Bruno's own .bru reader and writer the collection generator and its test use (no types shipped). */
declare module '@usebruno/lang' {
  export function jsonToBruV2(request: unknown): string;
  // What a request file holds (meta, http, params, headers, body, script, docs), read loosely by the test.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  export function bruToJsonV2(text: string): Record<string, any>;
  /** A folder's `folder.bru` (its meta: name and run order). */
  export function jsonToCollectionBru(folder: unknown): string;
  export function envJsonToBruV2(environment: { variables: Array<{ name: string; value: string; enabled: boolean; secret: boolean }> }): string;
  export function bruToEnvJsonV2(text: string): { variables: Array<{ name: string; value: string; enabled: boolean; secret: boolean }> };
}
