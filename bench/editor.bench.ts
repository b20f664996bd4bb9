// The design editor (issue 19): time from opening the 4-size demo set (signed in, cold browser cache, editor code
// loaded lazily) until its canvas is editable, and from a property change to the canvas showing it — a position and a
// colour (both drawn by the editor in the frame of the change) and a text (laid out by the server: one POST
// /v1/studio/canvas, whose size and Server-Timing are reported too). Headless Chromium against a real `placard serve`
// with the demo data; p50 and p95 of BENCH_EDITOR_RUNS, with the load average at the start and the end. The first
// open of a run finds the service's canvas cache empty; it is reported alone as well.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser } from '../test/browser/browser.js';
import { startService } from './service.js';
import { printTable } from './table.js';

const RUNS = Number(process.env.BENCH_EDITOR_RUNS ?? 10);

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

/** In the page: the last canvas request's duration, answer bytes and the server's own split (Server-Timing). */
const LAST_CANVAS_REQUEST = `(() => {
  const entries = performance.getEntriesByType('resource').filter((e) => e.name.includes('/v1/studio/canvas'));
  const last = entries[entries.length - 1];
  return {
    ms: last.duration,
    bytes: last.encodedBodySize,
    server: Object.fromEntries(last.serverTiming.map((t) => [t.name, t.duration])),
    packaged: last.serverTiming.find((t) => t.name === 'render')?.description ?? '',
  };
})()`;

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export async function benchEditor() {
  execSync('npm run build:web --silent', { stdio: 'inherit' });
  const service = await startService();
  const browser = await launchBrowser();
  const open: number[] = [];
  const move: number[] = [];
  const colour: number[] = [];
  const text: number[] = [];
  const textRequest: number[] = [];
  const textServer: number[] = [];
  const textRender: number[] = [];
  const textBytes: number[] = [];
  const openFirstRequest: number[] = [];
  const loadAtStart = load();
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
        const first = (await page.evaluate(
          `performance.getEntriesByType('resource').find((e) => e.name.includes('/v1/studio/canvas'))?.duration ?? 0`,
        )) as number;
        openFirstRequest.push(first);

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
        const request = (await page.evaluate(LAST_CANVAS_REQUEST)) as {
          ms: number;
          bytes: number;
          server: Record<string, number>;
          packaged: string;
        };
        textRequest.push(request.ms);
        textBytes.push(request.bytes);
        textRender.push(request.server.render ?? 0);
        textServer.push(Object.values(request.server).reduce((a, b) => a + b, 0));
        console.error(`run ${i + 1}: text answer ${request.bytes} B, ${request.packaged}`);

        // The button's colour, from the properties panel, as the issue's test changes it.
        await page.getByRole('complementary', { name: 'Layers' }).getByRole('button', { name: 'cta' }).click();
        await page.getByRole('form', { name: 'Properties of cta' }).waitFor();
        const [r, g, b] = [16 + i, 128, 200 - i];
        const hex = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
        colour.push(
          await page.evaluate(
            `(${CHANGE_AND_WAIT})(${JSON.stringify({
              id: 'prop-fill',
              value: hex,
              check: `() => { const fill = document.querySelector('[data-testid=canvas] [data-element-name=cta]')?.firstElementChild; return !!fill && getComputedStyle(fill).backgroundColor === 'rgb(${r}, ${g}, ${b})'; }`,
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
  const quantile = (xs: number[], q: number) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  };
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const row = (measure: string, xs: number[], unit = ms) => ({
    measure,
    runs: xs.length,
    p50: unit(quantile(xs, 0.5)),
    p95: unit(quantile(xs, 0.95)),
    max: unit(Math.max(...xs)),
  });
  printTable(`Design editor, 4-size demo set (${RUNS} runs; load average at start ${loadAtStart}, at end ${load()})`, [
    row('open → editable canvas, first (service cache empty)', open.slice(0, 1)),
    row('open → editable canvas, later opens (cold browser)', open.slice(1)),
    row('  of which the first canvas request', openFirstRequest),
    row('position change → canvas (local)', move),
    row('colour change → canvas (local)', colour),
    row('text change → canvas (server layout)', text),
    row('  of which the canvas request', textRequest),
    row('  of which server time (Server-Timing sum)', textServer),
    row('  of which packaging the changed element', textRender),
    row('  answer size', textBytes, (n) => `${n} B`),
  ]);
}
