import { defineConfig } from 'vite';

/**
 * The gateway serves the build at /admin, so every asset URL starts with /admin/. `npm run dev -w
 * admin-console` proxies the API to a local `npm start` gateway.
 */
export default defineConfig({
  base: '/admin/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: 'dist', emptyOutDir: true },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
