// The studio's first load: the compressed bytes of the JS and CSS that index.html loads, and the time from opening
// /app/designs (signed in, cold browser cache) until every demo design shows in the grid, in headless Chromium
// against a real `placard serve` with the demo data. Median of BENCH_STUDIO_RUNS fresh browser contexts. The bytes
// the server actually sent for the first view's JS and CSS (precompressed .br files, issue 18) are counted from the
// browser's own network records of the first load.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { DEMO_DESIGNS } from '../src/cli/demo-designs.js';
import { STUDIO_DIR } from '../src/http/routes/studio.js';
import { launchBrowser } from '../test/browser/browser.js';
import { startService } from './service.js';
import { printTable } from './table.js';

const RUNS = Number(process.env.BENCH_STUDIO_RUNS ?? 5);

export async function benchStudio() {
  execSync('npm run build:web --silent', { stdio: 'inherit' });
  const html = fs.readFileSync(path.join(STUDIO_DIR, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  const bytes = { js: { raw: 0, gzip: 0, brotli: 0 }, css: { raw: 0, gzip: 0, brotli: 0 } };
  for (const file of files) {
    const body = fs.readFileSync(path.join(STUDIO_DIR, file));
    const kind = file.endsWith('.js') ? bytes.js : bytes.css;
    kind.raw += body.length;
    kind.gzip += gzipSync(body, { level: 9 }).length;
    kind.brotli += brotliCompressSync(body).length;
  }

  const service = await startService();
  const browser = await launchBrowser();
  const times: number[] = [];
  const sent = { js: 0, css: 0, encodings: new Set<string>() };
  try {
    const { email, password } = JSON.parse(
      fs.readFileSync(path.join(service.dataDir, 'demo-credentials.json'), 'utf8'),
    );
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext();
      try {
        const login = await context.request.post(`${service.url}/v1/auth/login`, { data: { email, password } });
        if (!login.ok()) throw new Error(`sign-in failed: ${login.status()}`);
        const page = await context.newPage();
        const responses: import('playwright-core').Response[] = [];
        if (i === 0) page.on('response', (response) => responses.push(response));
        const started = performance.now();
        await page.goto(`${service.url}/app/designs`);
        for (const design of DEMO_DESIGNS) await page.getByRole('listitem', { name: design.name }).waitFor();
        times.push(performance.now() - started);
        for (const response of responses) {
          const file = /\/(assets\/[^?]+\.(?:js|css))$/.exec(new URL(response.url()).pathname)?.[1];
          if (!file || !files.includes(file)) continue; // only what index.html loads: the first view
          const { responseBodySize } = await response.request().sizes();
          sent[file.endsWith('.js') ? 'js' : 'css'] += responseBodySize;
          sent.encodings.add((await response.allHeaders())['content-encoding'] ?? 'none');
        }
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await service.stop();
  }
  times.sort((a, b) => a - b);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  printTable(
    `Studio first load (${RUNS} cold loads; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
    [
      {
        'JS (raw / gzip / brotli)': `${kb(bytes.js.raw)} / ${kb(bytes.js.gzip)} / ${kb(bytes.js.brotli)}`,
        'CSS (raw / gzip)': `${kb(bytes.css.raw)} / ${kb(bytes.css.gzip)}`,
        'JS + CSS sent': `${kb(sent.js)} + ${kb(sent.css)} (${[...sent.encodings].join(', ')})`,
        'grid shown, median': `${Math.round(times[Math.floor(times.length / 2)])} ms`,
        'grid shown, max': `${Math.round(times[times.length - 1])} ms`,
      },
    ],
  );
}
