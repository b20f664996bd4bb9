// @placard/client in a real browser (headless Chromium): the built ESM package loads with nothing but openapi-fetch
// (no Node built-ins), fetches a token and calls a real Placard (requests of the page are carried to the service
// listening on a port), and verifies a Standard Webhooks signature with WebCrypto.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { launchBrowser } from '../browser/browser.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIST = path.join(ROOT, 'packages/client/dist');
const ORIGIN = 'https://app.test';

describe('@placard/client in a browser', () => {
  let t: TestApp;
  let service: string;
  let browser: Browser;
  let page: Page;

  before(async () => {
    if (!fs.existsSync(path.join(DIST, 'index.js'))) assert.fail('the client is not built: run `npm install`');
    const port = await freePort();
    t = await startTestApp();
    await t.app.listen({ port, host: '127.0.0.1' });
    service = `http://127.0.0.1:${port}`;
    browser = await launchBrowser();
    page = await browser.newPage();
    const files = new Map<string, string>([
      [
        '/index.html',
        '<!doctype html><script type="importmap">{"imports":{"openapi-fetch":"/vendor/openapi-fetch.mjs"}}</script>' +
          '<title>client</title>',
      ],
      [
        '/vendor/openapi-fetch.mjs',
        fs.readFileSync(path.join(ROOT, 'node_modules/openapi-fetch/dist/index.mjs'), 'utf8'),
      ],
    ]);
    for (const name of fs.readdirSync(DIST).filter((n) => n.endsWith('.js'))) {
      files.set(`/client/${name}`, fs.readFileSync(path.join(DIST, name), 'utf8'));
    }
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.origin !== ORIGIN) return route.abort();
      if (url.pathname.startsWith('/v1/')) {
        // The page's API calls, carried to the real service (same origin for the page: no CORS in the way).
        const response = await route.fetch({ url: `${service}${url.pathname}${url.search}` });
        return route.fulfill({ response });
      }
      const body = files.get(url.pathname);
      if (body === undefined) return route.fulfill({ status: 404, body: 'not found' });
      return route.fulfill({
        status: 200,
        body,
        contentType: url.pathname.endsWith('.html') ? 'text/html' : 'text/javascript',
      });
    });
    await page.goto(`${ORIGIN}/index.html`);
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  test('the built package imports no Node built-ins', () => {
    for (const name of fs.readdirSync(DIST).filter((n) => n.endsWith('.js'))) {
      const source = fs.readFileSync(path.join(DIST, name), 'utf8');
      assert.doesNotMatch(source, /from ['"]node:|require\(/, name);
    }
  });

  test('fetches a token and calls the service from the page', async () => {
    const { clientId, clientSecret } = t.owner;
    // A string, not a function: the test runner's transpiler would wrap a function in helpers the page lacks.
    const result = await page.evaluate(`(async () => {
      const { createClient, PlacardError } = await import('/client/index.js');
      const client = createClient({ baseUrl: location.origin, clientId: ${JSON.stringify(clientId)},
        clientSecret: ${JSON.stringify(clientSecret)} });
      const roles = (await client.GET('/v1/roles')).response.map((r) => r.name);
      let error = null;
      try { await client.GET('/v1/export/{exportId}', { params: { path: { exportId: crypto.randomUUID() } } }); }
      catch (e) { error = { isPlacard: e instanceof PlacardError, status: e.status, code: e.code }; }
      return { roles, error };
    })()`);
    assert.deepEqual(result, {
      roles: ['Owner', 'Admin', 'Editor', 'Viewer'],
      error: { isPlacard: true, status: 404, code: 'NOT_FOUND' },
    });
  });

  test('verifies a Standard Webhooks signature with WebCrypto and refuses a tampered body', async () => {
    const secret = `whsec_${Buffer.from('a test key of thirty-two bytes!!').toString('base64')}`;
    const body = JSON.stringify({ id: 'd1', action: 'design/create', teamId: 1, occurredAt: 'x', data: {} });
    const at = new Date();
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('msg_1', at, body),
    };
    const result = await page.evaluate(`(async () => {
      const { verifyWebhook } = await import('/client/index.js');
      const headers = new Headers(${JSON.stringify(headers)});
      const event = await verifyWebhook(${JSON.stringify(secret)}, headers, ${JSON.stringify(body)});
      let refused = null;
      try { await verifyWebhook(${JSON.stringify(secret)}, headers, ${JSON.stringify(body.replace('d1', 'd2'))}); }
      catch (e) { refused = e.name; }
      return { action: event.action, refused };
    })()`);
    assert.deepEqual(result, { action: 'design/create', refused: 'WebhookVerificationError' });
  });
});
