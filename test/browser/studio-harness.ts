// The studio under test, shared by the browser test files: a listening service with a brand kit and one project, a
// browser, and Editors of the team signed in through the invite page as a person would be (set a password, land on
// Designs). Errors of the page are kept, so a test that times out can say what the page reported.
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type Caller, startTestApp, type TestApp, type TestOptions } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { launchBrowser } from './browser.js';

export const PASSWORD = 'a long enough password';

/**
 * A new user of the team with this role (a member of `projectId` when given: an Editor sees only its projects),
 * signed in on `page` through the invite page as a person would be: set a password, land on Designs.
 */
export async function signInInvited(
  t: TestApp,
  page: Page,
  options: { role?: Parameters<TestApp['userWith']>[0]; projectId?: number } = {},
): Promise<Caller> {
  const post = async (url: string, payload: object) => {
    const res = await t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload });
    assert.equal(res.statusCode, 200, `POST ${url}: ${res.body}`);
    return res.json();
  };
  const user = await t.userWith(options.role ?? 'Editor');
  if (options.projectId !== undefined) {
    await post('/v1/project/users', { userId: user.userId, projectId: options.projectId });
  }
  const { inviteUrl } = await post('/v1/users/invite', { userId: user.userId });
  await page.goto(inviteUrl);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('Repeat the password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.getByRole('heading', { name: 'Designs' }).waitFor();
  return user;
}

export interface Studio {
  t: TestApp;
  browser: Browser;
  origin: string;
  projectId: number;
  /** What the pages reported: uncaught errors and console errors. */
  logs: string[];
  /** A POST of the team's owner, which must answer 200; its JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: answers of many routes, read by each test as it needs
  call(url: string, payload: object): Promise<any>;
  /** Imports a design into the project; its template hash. */
  importDesign(name: string, document: unknown): Promise<string>;
  /** A new Editor of the team and the project, signed in, on the Designs page, in a browser context of its own. */
  signIn(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function startStudio(projectName: string, options: TestOptions = {}): Promise<Studio> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ publicUrl: origin, ...options });
  const contexts: BrowserContext[] = [];
  let browser: Browser | undefined;
  const close = async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    await t.close();
  };
  try {
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
    const call = async (url: string, payload: object) => {
      const res = await t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload });
      assert.equal(res.statusCode, 200, `POST ${url}: ${res.body}`);
      return res.json();
    };
    const brandKitId = (await call('/v1/brandkits/create', { name: 'Kit' })).response.brandKit.id;
    const projectId: number = (await call('/v1/projects', { name: projectName, brandKitId })).response.project.id;
    const logs: string[] = [];
    const opened = browser;
    return {
      t,
      browser: opened,
      origin,
      projectId,
      logs,
      call,
      async importDesign(name, document) {
        return (await call('/v1/templates/import', { projectId, name, document })).response.template.id;
      },
      async signIn(viewport = { width: 1400, height: 900 }) {
        const context = await opened.newContext({ viewport });
        contexts.push(context);
        const page = await context.newPage();
        page.on('pageerror', (error) => logs.push(`pageerror: ${error.message}`));
        page.on('console', (m) => m.type() === 'error' && logs.push(`console: ${m.text()}`));
        await signInInvited(t, page, { projectId });
        return page;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
