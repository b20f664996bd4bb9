// The studio's build: `npm run build:web` (run by `npm install` and `npm start`) writes dist/web, which the API
// serves at /. `npx vite web` serves it with hot reload and sends /v1, /share and /files to a running API.
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const api = process.env.PLACARD_API ?? 'http://localhost:8080';
const outDir = path.resolve(import.meta.dirname, '../dist/web');

/**
 * Writes a .br and a .gz beside every text file of the build, which @fastify/static serves with `preCompressed`
 * (issue 18: the first view's JS is measured compressed). Compressing once at build time at the highest levels costs
 * the server nothing per request, unlike on-the-fly compression. Written here with node:zlib (a dozen lines) rather
 * than with a plugin package, so the build needs no extra dependency.
 */
function precompress(): Plugin {
  return {
    name: 'placard-precompress',
    apply: 'build',
    closeBundle() {
      const walk = (dir: string): string[] =>
        fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
          const full = path.join(dir, entry.name);
          return entry.isDirectory() ? walk(full) : [full];
        });
      for (const file of walk(outDir)) {
        if (!/\.(js|css|html|svg|json)$/.test(file)) continue;
        const body = fs.readFileSync(file);
        if (body.length < 1024) continue; // too small to gain anything; served as it is
        fs.writeFileSync(
          `${file}.br`,
          brotliCompressSync(body, {
            params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
          }),
        );
        fs.writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), precompress()],
  build: { outDir, emptyOutDir: true, target: 'es2022' },
  server: { proxy: { '/v1': api, '/share': api, '/files': api, '/avatars': api } },
});
