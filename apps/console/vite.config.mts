import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console's build: static files the gateway serves at /console/
// (`npm run build` writes them to dist/console). Hashed names under assets/
// let the gateway cache them for a year; index.html is revalidated.
const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react()],
  resolve: {
    // In the repository the SDK's sources stand in for its build, as for the other workspaces.
    alias: { '@weft/sdk/browser': path.resolve(here, '../../packages/sdk/src/browser.ts') },
  },
  build: {
    outDir: path.resolve(here, '../../dist/console'),
    emptyOutDir: true,
    // The gateway's Content-Security-Policy allows no inline script, and every browser we support has modulepreload.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: true,
  },
});
