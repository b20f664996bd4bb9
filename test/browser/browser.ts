// Headless Chromium for the browser tests (through playwright-core): one browser per test file, and packages served
// from memory on a fake origin, so nothing touches the disk or the network. The browser is Debian's `chromium` when the
// machine has it, else the build that ships inside the `@sparticuz/chromium` npm package (a dev dependency), so that
// `npm install && npm test` needs nothing but Node. PLACARD_CHROMIUM names another binary (`npm`: the packaged one).
import fs from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Chromium to drive. Fails at once, with the install command, when none can be had: a test must never wait on a
 * tool it lacks.
 */
export async function chromiumPath(): Promise<string> {
  const chosen = process.env.PLACARD_CHROMIUM;
  if (chosen && chosen !== 'npm') {
    if (executable(chosen)) return chosen;
    throw new Error(
      `Chromium is missing at ${chosen}: install it with \`sudo apt-get install -y chromium\`, ` +
        'or point PLACARD_CHROMIUM at a Chromium binary, or unset it to use the one from npm (@sparticuz/chromium)',
    );
  }
  if (chosen !== 'npm' && executable(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  try {
    // Unpacked from the package into the temporary directory on first use (a few seconds), then reused.
    const { default: packaged } = await import('@sparticuz/chromium');
    return await packaged.executablePath();
  } catch (error) {
    throw new Error(
      `no Chromium: install Debian's with \`sudo apt-get install -y chromium\`, or run \`npm install\` (it brings ` +
        `@sparticuz/chromium): ${(error as Error).message}`,
    );
  }
}

/**
 * Whether the Chromium to drive is the npm package's build. Its text differs from Debian's in a few pixel-level cases
 * (the reference the text layout is checked against is Debian's `chromium`, which CI installs).
 */
export function isPackagedChromium(): boolean {
  const chosen = process.env.PLACARD_CHROMIUM;
  if (chosen && chosen !== 'npm') return false;
  return chosen === 'npm' || !executable(DEBIAN_CHROMIUM);
}

/** Launch it FIRST in a `before`, before starting servers: if it throws, nothing is left running to hang the run. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      // Text as Skia draws it in the renderer: greyscale anti-aliasing, no hinting-driven snapping to whole pixels.
      '--font-render-hinting=none',
      '--disable-lcd-text',
    ],
  });
}

export const AD_ORIGIN = 'https://ad.test';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css',
  js: 'text/javascript',
  json: 'application/json',
  svg: 'image/svg+xml',
  jpg: 'image/jpeg',
  png: 'image/png',
  woff2: 'font/woff2',
  mp4: 'video/mp4',
};

/** Serves `files` at AD_ORIGIN/<path> in `page`; every other request fails (the ad must not load anything else). */
export async function servePackage(page: Page, files: ReadonlyMap<string, Uint8Array>): Promise<string[]> {
  const refused: string[] = [];
  await page.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    const name = decodeURIComponent(url.pathname.slice(1));
    const body = url.origin === AD_ORIGIN ? files.get(name) : undefined;
    if (!body) {
      refused.push(route.request().url());
      return route.abort();
    }
    return route.fulfill({
      status: 200,
      body: Buffer.from(body),
      contentType: TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream',
    });
  });
  return refused;
}

/** Waits for the fonts, then jumps every CSS animation to its end: the state once the ad has finished playing. */
export async function finishAnimations(page: Page): Promise<void> {
  // A string, not a function: the test runner's transpiler would wrap a function in helpers the page lacks.
  await page.evaluate(`(async () => {
    await document.fonts.ready;
    for (const animation of document.getAnimations()) animation.finish();
  })()`);
}
