// The studio's build: `npm run build:web` (run by `npm install` and `npm start`) writes dist/web, which the API
// serves at /. `npx vite web` serves it with hot reload and sends /v1, /share and /files to a running API.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = process.env.PLACARD_API ?? 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  build: { outDir: '../dist/web', emptyOutDir: true, target: 'es2022' },
  server: { proxy: { '/v1': api, '/share': api, '/files': api, '/avatars': api } },
});
