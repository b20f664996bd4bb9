// Team webhooks (seed "Team webhooks", SPEC §8, §11): exact shapes of list, create and update, validation, roles,
// teams, the action catalogue, the signing secret, and URLs that could never receive a delivery refused at once.
// Deliveries are tested in webhook-deliveries.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CATALOGUE_RELEASED_AT } from '../../../src/events/catalogue.js';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const ACTIONS = {
  exportComplete: {
    id: 1,
    name: 'export/complete',
    description: 'An export finished with every creative complete; data.export is as GET /v1/export/{id} answers it.',
  },
  designCreate: {
    id: 3,
    name: 'design/create',
    description: 'A design was created: imported, or made by an export with changes.',
  },
  userCreate: {
    id: 9,
    name: 'user/create',
    description: 'A user was added to the team; data.user is the team user as GET /v1/users lists it.',
  },
};

/** The action as a created or updated webhook shows it. */
const full = (a: { id: number; name: string; description: string }) => ({
  ...a,
  config: '{}',
  createdAt: CATALOGUE_RELEASED_AT,
});

describe('team webhooks', () => {
  let t: TestApp;
  let admin: Caller;
  let adminName: string;
  before(async () => {
    t = await startTestApp();
    admin = await t.userWith('Admin');
    const users = await t.app.inject({ method: 'GET', url: '/v1/users', headers: t.owner.headers });
    adminName = users.json().response.nodes.find((n: { id: number }) => n.id === admin.userId).name;
  });
  after(() => t.close());

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
    caller: Caller = t.owner,
  ) => t.app.inject({ method, url, headers: caller.headers, ...(payload ? { payload } : {}) });

  const create = (payload: Record<string, unknown>, caller: Caller = t.owner) =>
    call('POST', '/v1/webhooks', payload, caller);

  const linkRows = (webhookId: number) =>
    t.runtime.db.kysely
      .selectFrom('webhook_actions')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('action_id')
      .execute();

  test('GET /v1/webhookActions lists the catalogue as { id, name, description }, to any role', async () => {
    const viewer = await t.userWith('Viewer');
    const res = await call('GET', '/v1/webhookActions', undefined, viewer);
    assert.equal(res.statusCode, 200);
    const list = res.json().response;
    assert.equal(list.length, 18);
    assert.deepEqual(list[0], ACTIONS.exportComplete);
    assert.deepEqual(list[8], ACTIONS.userCreate);
    for (const action of list) assert.deepEqual(Object.keys(action).sort(), ['description', 'id', 'name']);
  });

  test('POST creates a webhook and answers the seed shape with each action resolved in full', async () => {
    const res = await create({ name: 'Exports to CI', url: 'https://hooks.example.com/placard', actions: [3, 1, 3] });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['response']);
    const hook = body.response;
    assert.equal(typeof hook.id, 'number');
    assert.match(hook.createdAt, ISO_MS);
    const by = { id: t.owner.userId, name: 'Acme Owner' };
    // A repeated id is one subscription; links come in action id order.
    assert.deepEqual(hook, {
      id: hook.id,
      name: 'Exports to CI',
      webhookUrl: 'https://hooks.example.com/placard',
      createdAt: hook.createdAt,
      createdByUser: by,
      actions: [
        { actionId: 1, createdAt: hook.createdAt, createdByUser: by, action: full(ACTIONS.exportComplete) },
        { actionId: 3, createdAt: hook.createdAt, createdByUser: by, action: full(ACTIONS.designCreate) },
      ],
    });
    assert.deepEqual(
      (await linkRows(hook.id)).map((r) => [r.action_id, r.created_by]),
      [
        [1, t.owner.userId],
        [3, t.owner.userId],
      ],
    );
  });

  test('GET lists the webhooks of the team, newest first, with only name and description inside action', async () => {
    const first = (await create({ name: 'First', url: 'http://a.example.com/h', actions: [9] })).json().response;
    const second = (await create({ name: 'Second', url: 'https://b.example.com/h', actions: [] })).json().response;
    const res = await call('GET', '/v1/webhooks');
    assert.equal(res.statusCode, 200);
    const list = res.json().response;
    assert.ok(Array.isArray(list));
    const ids = list.map((w: { id: number }) => w.id);
    assert.ok(ids.indexOf(second.id) < ids.indexOf(first.id), 'newest first');
    const listed = list.find((w: { id: number }) => w.id === first.id);
    assert.deepEqual(listed, {
      id: first.id,
      name: 'First',
      webhookUrl: 'http://a.example.com/h',
      createdAt: first.createdAt,
      createdByUser: { id: t.owner.userId, name: 'Acme Owner' },
      actions: [
        {
          actionId: 9,
          createdAt: first.createdAt,
          createdByUser: { id: t.owner.userId, name: 'Acme Owner' },
          action: { name: 'user/create', description: ACTIONS.userCreate.description },
        },
      ],
    });
    assert.deepEqual(list.find((w: { id: number }) => w.id === second.id).actions, []);
  });

  test('body errors are a 400 naming the field and the rule', async () => {
    const base = { name: 'Hook', url: 'https://example.com/h', actions: [1] };
    const cases: [Record<string, unknown>, RegExp, string][] = [
      [{ ...base, url: 'ftp://example.com/h' }, /^url: must be an http:\/\/ or https:\/\/ URL/, '/url'],
      [{ ...base, url: 'javascript:alert(1)' }, /^url: must be an http:\/\/ or https:\/\/ URL/, '/url'],
      [{ ...base, url: 'not a url' }, /^url: must be an http:\/\/ or https:\/\/ URL/, '/url'],
      [{ ...base, url: 'https://' }, /^url: must be an http:\/\/ or https:\/\/ URL with a host/, '/url'],
      [{ ...base, url: 'https://exa mple.com' }, /^url: must be an absolute URL/, '/url'],
      [{ ...base, name: '' }, /^name: must not be empty/, '/name'],
      [{ ...base, name: '   ' }, /^name: must not be empty or only spaces/, '/name'],
      [{ name: 'Hook', url: 'https://example.com/h' }, /^actions: is required/, '/actions'],
      [{ ...base, actions: ['1'] }, /^actions\[0\]: must be an integer, received "1"/, '/actions/0'],
      [{ ...base, actions: [0] }, /^actions\[0\]: must be >= 1/, '/actions/0'],
      [{ ...base, secret: 'x' }, /^secret: is not a known field/, '/secret'],
    ];
    for (const [payload, message, path] of cases) {
      const res = await create(payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      const body = res.json();
      assert.equal(body.code, 'VALIDATION_FAILED');
      assert.match(body.error, message);
      assert.equal(body.details[0].path, path);
    }
  });

  test('an unknown action id is a 422 UNPROCESSABLE naming the id and its position, and creates nothing', async () => {
    const before = (await call('GET', '/v1/webhooks')).json().response.length;
    const one = await create({ name: 'Hook', url: 'https://example.com/h', actions: [1, 99] });
    assert.equal(one.statusCode, 422);
    assert.equal(one.json().code, 'UNPROCESSABLE');
    assert.match(one.json().error, /^actions: 99 is not a webhook action id; known ids are 1 to 18/);
    assert.deepEqual(one.json().details, [
      { path: '/actions/1', in: 'body', message: '99 is not a webhook action id' },
    ]);

    const two = await create({ name: 'Hook', url: 'https://example.com/h', actions: [19, 2, 40] });
    assert.equal(two.statusCode, 422);
    assert.match(two.json().error, /^actions: 19, 40 are not webhook action ids/);
    assert.deepEqual(
      two.json().details.map((d: { path: string }) => d.path),
      ['/actions/0', '/actions/2'],
    );
    assert.equal((await call('GET', '/v1/webhooks')).json().response.length, before);
  });

  test('PUT changes only what is given and keeps the links of the actions that stay', async () => {
    const created = (await create({ name: 'Original', url: 'https://example.com/one', actions: [1, 3] })).json()
      .response;

    const renamed = await call('PUT', '/v1/webhooks', { webhookId: created.id, name: 'Renamed' }, admin);
    assert.equal(renamed.statusCode, 200);
    assert.deepEqual(renamed.json().response, { ...created, name: 'Renamed' });

    const moved = await call(
      'PUT',
      '/v1/webhooks',
      { webhookId: created.id, url: 'http://example.org/two', actions: [9, 3, 9] },
      admin,
    );
    assert.equal(moved.statusCode, 200);
    const hook = moved.json().response;
    assert.equal(hook.webhookUrl, 'http://example.org/two');
    assert.equal(hook.name, 'Renamed');
    // The creator and creation time of the webhook do not change.
    assert.deepEqual(hook.createdByUser, { id: t.owner.userId, name: 'Acme Owner' });
    assert.equal(hook.createdAt, created.createdAt);
    // Action 3 stays as it was added; 1 is gone; 9 is added by the admin.
    assert.deepEqual(
      hook.actions.map((a: { actionId: number }) => a.actionId),
      [3, 9],
    );
    assert.deepEqual(hook.actions[0], created.actions[1]);
    assert.deepEqual(hook.actions[1].createdByUser, { id: admin.userId, name: adminName });
    assert.deepEqual(hook.actions[1].action, full(ACTIONS.userCreate));
    assert.match(hook.actions[1].createdAt, ISO_MS);

    const cleared = await call('PUT', '/v1/webhooks', { webhookId: created.id, actions: [] });
    assert.equal(cleared.statusCode, 200);
    assert.deepEqual(cleared.json().response.actions, []);
    assert.deepEqual(await linkRows(created.id), []);
  });

  test('PUT refuses unknown actions, bad fields and unknown webhooks', async () => {
    const created = (await create({ name: 'Keep', url: 'https://example.com/k', actions: [1] })).json().response;

    const unknown = await call('PUT', '/v1/webhooks', { webhookId: created.id, actions: [1, 77] });
    assert.equal(unknown.statusCode, 422);
    assert.match(unknown.json().error, /^actions: 77 is not a webhook action id/);

    const badUrl = await call('PUT', '/v1/webhooks', { webhookId: created.id, url: 'mailto:a@b.c' });
    assert.equal(badUrl.statusCode, 400);
    assert.match(badUrl.json().error, /^url: must be an http:\/\/ or https:\/\/ URL/);

    const noId = await call('PUT', '/v1/webhooks', { name: 'x' });
    assert.equal(noId.statusCode, 400);
    assert.match(noId.json().error, /^webhookId: is required/);

    const missing = await call('PUT', '/v1/webhooks', { webhookId: 999999, name: 'x' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'NOT_FOUND');
    assert.match(missing.json().error, /^webhookId: no webhook 999999 in this team/);

    const listed = (await call('GET', '/v1/webhooks')).json().response.find((w: { id: number }) => w.id === created.id);
    assert.equal(listed.name, 'Keep');
    assert.deepEqual(
      listed.actions.map((a: { actionId: number }) => a.actionId),
      [1],
    );
  });

  test('DELETE answers { status: success } and removes the webhook with its links', async () => {
    const created = (await create({ name: 'Doomed', url: 'https://example.com/d', actions: [1, 2] })).json().response;
    const res = await call('DELETE', '/v1/webhooks', { webhookId: created.id });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { response: { status: 'success' } });
    const ids = (await call('GET', '/v1/webhooks')).json().response.map((w: { id: number }) => w.id);
    assert.ok(!ids.includes(created.id));
    assert.deepEqual(await linkRows(created.id), []);

    const again = await call('DELETE', '/v1/webhooks', { webhookId: created.id });
    assert.equal(again.statusCode, 404);
    assert.equal(again.json().code, 'NOT_FOUND');
  });

  test("another team's webhook does not exist: 404 on PUT and DELETE, absent from GET, left unchanged", async () => {
    const other = await t.newTeam('Globex');
    const theirs = (await create({ name: 'Theirs', url: 'https://globex.example/h', actions: [5] }, other)).json()
      .response;

    assert.ok(!(await call('GET', '/v1/webhooks')).json().response.some((w: { id: number }) => w.id === theirs.id));
    const put = await call('PUT', '/v1/webhooks', { webhookId: theirs.id, name: 'Hijacked' });
    assert.equal(put.statusCode, 404);
    const del = await call('DELETE', '/v1/webhooks', { webhookId: theirs.id });
    assert.equal(del.statusCode, 404);

    const list = (await call('GET', '/v1/webhooks', undefined, other)).json().response;
    assert.deepEqual(list.length, 1);
    assert.equal(list[0].name, 'Theirs');
    assert.equal(list[0].id, theirs.id);
  });

  test('Editors and Viewers get 403 on every webhook route; Admins may', async () => {
    const mine = (await create({ name: 'Mine', url: 'https://example.com/m', actions: [1] })).json().response;
    for (const role of ['Editor', 'Viewer'] as const) {
      const caller = await t.userWith(role);
      const requests: [Parameters<typeof call>[0], string, Record<string, unknown>?][] = [
        ['GET', '/v1/webhooks'],
        ['POST', '/v1/webhooks', { name: 'x', url: 'https://example.com/x', actions: [1] }],
        ['PUT', '/v1/webhooks', { webhookId: mine.id, name: 'x' }],
        ['DELETE', '/v1/webhooks', { webhookId: mine.id }],
        ['GET', '/v1/webhooks/secret'],
        ['POST', '/v1/webhooks/secret/rotate'],
      ];
      for (const [method, url, payload] of requests) {
        const res = await call(method, url, payload, caller);
        assert.equal(res.statusCode, 403, `${role} ${method} ${url}`);
        assert.equal(res.json().code, 'FORBIDDEN');
        assert.match(res.json().error, new RegExp(`needs the Admin role or a stronger one; the caller is ${role}`));
      }
    }
    const byAdmin = await create({ name: 'By admin', url: 'https://example.com/a', actions: [2] }, admin);
    assert.equal(byAdmin.statusCode, 200);
    assert.deepEqual(byAdmin.json().response.createdByUser, { id: admin.userId, name: adminName });
    const stillThere = (await call('GET', '/v1/webhooks', undefined, admin)).json().response;
    assert.ok(stillThere.some((w: { id: number; name: string }) => w.id === mine.id && w.name === 'Mine'));
  });
});

describe('webhook URLs when private addresses are not allowed', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ allowPrivateUrls: false });
  });
  after(() => t.close());

  const create = (url: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: t.owner.headers,
      payload: { name: 'Hook', url, actions: [1] },
    });

  test('a literal private, loopback or link-local host or localhost is 422 naming url and the rule', async () => {
    const cases: Array<[string, string]> = [
      ['http://127.0.0.1:8080/h', 'points at 127.0.0.1, a loopback address'],
      ['http://10.0.0.5/h', 'points at 10.0.0.5, a private address'],
      ['http://169.254.169.254/latest/meta-data', 'points at 169.254.169.254, a link-local address'],
      ['http://[::1]/h', 'points at ::1, a loopback address'],
      ['http://localhost:3000/h', 'points at localhost, a loopback host name'],
    ];
    for (const [url, reason] of cases) {
      const res = await create(url);
      assert.equal(res.statusCode, 422, url);
      const body = res.json();
      assert.equal(body.code, 'UNPROCESSABLE');
      assert.equal(
        body.error,
        `url: ${reason}; webhooks must reach a public address (or a host listed in PLACARD_ALLOWED_PRIVATE_HOSTS)`,
      );
      assert.deepEqual(body.details, [
        {
          path: '/url',
          in: 'body',
          message: `${reason}; webhooks must reach a public address (or a host listed in PLACARD_ALLOWED_PRIVATE_HOSTS)`,
        },
      ]);
    }
    const list = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: t.owner.headers });
    assert.deepEqual(list.json().response, []);
  });

  test('PUT refuses such a URL and leaves the webhook as it was; a public host name passes', async () => {
    const created = await create('https://hooks.example.com/h');
    assert.equal(created.statusCode, 200);
    const id = created.json().response.id;
    const res = await t.app.inject({
      method: 'PUT',
      url: '/v1/webhooks',
      headers: t.owner.headers,
      payload: { webhookId: id, url: 'http://192.168.1.10/h' },
    });
    assert.equal(res.statusCode, 422);
    assert.equal(
      res.json().error,
      'url: points at 192.168.1.10, a private address; webhooks must reach a public address (or a host listed in PLACARD_ALLOWED_PRIVATE_HOSTS)',
    );
    const list = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: t.owner.headers });
    assert.equal(list.json().response[0].webhookUrl, 'https://hooks.example.com/h');
  });
});

describe('webhook signing secret', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const secretOf = (caller: Caller) =>
    t.app.inject({ method: 'GET', url: '/v1/webhooks/secret', headers: caller.headers });
  const rotate = (caller: Caller) =>
    t.app.inject({ method: 'POST', url: '/v1/webhooks/secret/rotate', headers: caller.headers });
  const stored = (teamId: number) =>
    t.runtime.db.kysely.selectFrom('team_signing_secrets').selectAll().where('team_id', '=', teamId).execute();

  function assertSecret(response: { secret: string; createdAt: string }) {
    assert.deepEqual(Object.keys(response).sort(), ['createdAt', 'secret']);
    assert.match(response.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(response.secret.slice('whsec_'.length), 'base64').length, 32);
    assert.match(response.createdAt, ISO_MS);
  }

  test('is made on first read, then stays the same', async () => {
    assert.deepEqual(await stored(t.owner.teamId), []);
    const first = await secretOf(t.owner);
    assert.equal(first.statusCode, 200);
    assertSecret(first.json().response);
    const second = await secretOf(t.owner);
    assert.deepEqual(second.json(), first.json());
    assert.deepEqual(
      (await stored(t.owner.teamId)).map((r) => [r.secret, r.created_at]),
      [[first.json().response.secret, first.json().response.createdAt]],
    );
  });

  test('two first reads at once agree on one secret', async () => {
    const team = await t.newTeam('Race');
    const [a, b] = await Promise.all([secretOf(team), secretOf(team)]);
    assert.equal(a.statusCode, 200);
    assert.equal(b.statusCode, 200);
    assert.equal(a.json().response.secret, b.json().response.secret);
    assert.equal((await stored(team.teamId)).length, 1);
  });

  test('each team has its own secret', async () => {
    const other = await t.newTeam('Other');
    const mine = (await secretOf(t.owner)).json().response.secret;
    const theirs = (await secretOf(other)).json().response.secret;
    assert.notEqual(mine, theirs);
  });

  test('rotate replaces it at once, for that team only', async () => {
    const other = await t.newTeam('Bystander');
    const theirs = (await secretOf(other)).json().response;
    const old = (await secretOf(t.owner)).json().response;
    const res = await rotate(t.owner);
    assert.equal(res.statusCode, 200);
    const rotated = res.json().response;
    assertSecret(rotated);
    assert.notEqual(rotated.secret, old.secret);
    assert.deepEqual((await secretOf(t.owner)).json().response, rotated);
    assert.deepEqual((await secretOf(other)).json().response, theirs);
  });

  test('rotate before any read makes the first secret', async () => {
    const team = await t.newTeam('Fresh');
    const res = await rotate(team);
    assert.equal(res.statusCode, 200);
    assertSecret(res.json().response);
    assert.deepEqual((await secretOf(team)).json().response, res.json().response);
  });
});
