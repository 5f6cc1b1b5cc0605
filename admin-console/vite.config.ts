import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The gateway serves the build at /admin, so every asset URL starts with /admin/. `npm run dev -w
 * admin-console` proxies the API to a local `npm start` gateway. The client package is bundled from its
 * TypeScript source (as tsconfig's `paths` reads it): its `dist` is CommonJS for Node installers.
 */
export default defineConfig({
  base: '/admin/',
  // Vite 8 transforms with Oxc (its `esbuild` option is deprecated): Preact's automatic JSX runtime.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: { alias: { '@binzip/api-client': fileURLToPath(new URL('../api-client/src/index.ts', import.meta.url)) } },
  build: { outDir: 'dist', emptyOutDir: true },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
