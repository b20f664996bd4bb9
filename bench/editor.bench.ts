// The design editor (issue 19): time from opening the 4-size demo set (signed in, cold browser cache, editor code
// loaded lazily) until its canvas is editable, and from a property change to the canvas showing it — a position
// (applied from the document in the same frame) and a text (laid out by the server: one POST /v1/studio/canvas).
// Headless Chromium against a real `placard serve` with the demo data; medians of BENCH_EDITOR_RUNS.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser } from '../test/browser/browser.js';
import { startService } from './service.js';
import { printTable } from './table.js';

const RUNS = Number(process.env.BENCH_EDITOR_RUNS ?? 5);

/** In the page: sets a React-controlled field as typing would, and times until `shown()` holds (checked per frame). */
const CHANGE_AND_WAIT = `async ({ id, value, check }) => {
  const field = document.getElementById(id);
  const proto = field.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const shown = new Function('return (' + check + ')()');
  const started = performance.now();
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(field, value);
  field.dispatchEvent(new Event('input', { bubbles: true }));
  for (;;) {
    if (shown()) return performance.now() - started;
    if (performance.now() - started > 10000) throw new Error('the canvas did not show ' + id + ' = ' + value + ' within 10 s');
    await new Promise((r) => requestAnimationFrame(r));
  }
}`;

export async function benchEditor() {
  execSync('npm run build:web --silent', { stdio: 'inherit' });
  const service = await startService();
  const browser = await launchBrowser();
  const open: number[] = [];
  const move: number[] = [];
  const text: number[] = [];
  try {
    const { email, password } = JSON.parse(
      fs.readFileSync(path.join(service.dataDir, 'demo-credentials.json'), 'utf8'),
    );
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      try {
        const login = await context.request.post(`${service.url}/v1/auth/login`, { data: { email, password } });
        if (!login.ok()) throw new Error(`sign-in failed: ${login.status()}`);
        const list = await (await context.request.get(`${service.url}/v1/templates?keyword=IAB%20set`)).json();
        const hash = list.response.nodes[0].id;
        const page = await context.newPage();
        console.error(`run ${i + 1}: opening ${hash}`);
        const started = performance.now();
        await page.goto(`${service.url}/app/designs/${hash}/edit`);
        await page.locator('[data-testid=canvas][aria-busy=false] [data-element-name=headline]').waitFor();
        await page.getByRole('complementary', { name: 'Layers' }).getByRole('button', { name: 'headline' }).click();
        await page.getByRole('form', { name: 'Properties of headline' }).waitFor();
        open.push(performance.now() - started);

        const x = 20 + i;
        move.push(
          await page.evaluate(
            `(${CHANGE_AND_WAIT})(${JSON.stringify({
              id: 'prop-x',
              value: String(x),
              check: `() => document.querySelector('[data-testid=canvas] [data-element-name=headline]').style.left === '${x}px'`,
            })})`,
          ),
        );
        const words = `Bench text ${i}`;
        text.push(
          await page.evaluate(
            `(${CHANGE_AND_WAIT})(${JSON.stringify({
              id: 'prop-text',
              value: words,
              check: `() => (document.querySelector('[data-testid=canvas] [data-element-name=headline]')?.textContent ?? '').replace(/\\s+/g, ' ').includes('Bench text ${i}')`,
            })})`,
          ),
        );
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await service.stop();
  }
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  };
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  printTable(
    `Design editor, 4-size demo set (${RUNS} runs; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
    [
      { measure: 'open → editable canvas (cold cache)', median: ms(median(open)), max: ms(Math.max(...open)) },
      { measure: 'position change → canvas', median: ms(median(move)), max: ms(Math.max(...move)) },
      { measure: 'text change → canvas (server layout)', median: ms(median(text)), max: ms(Math.max(...text)) },
    ],
  );
}
