export default async function globalTeardown(): Promise<void> {
  for (const store of globalThis.__BINZIP_STORES__ ?? []) await store.stop();
}
