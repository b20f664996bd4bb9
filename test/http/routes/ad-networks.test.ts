// Ad networks (seed "Ad networks", SPEC §10, §11): the deprecated list with its headers, the two current lists with
// the status of each network in the caller's team (enabled unless the team set otherwise).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAdNetworkRepository } from '../../../src/storage/db/repositories/ad-networks.repository.js';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

interface Listed {
  id: number;
  name: string;
  type: string;
  adTag: boolean;
  html5: boolean;
  status: boolean;
  adNetworkTeams?: { teamId: number; adNetworkId: number; status: boolean };
}

const SUCCESSOR = '</v1/adnetworks/forHtml>; rel="successor-version"';

describe('ad networks', () => {
  let t: TestApp;
  let viewer: Caller;
  before(async () => {
    t = await startTestApp();
    viewer = await t.userWith('Viewer');
  });
  after(() => t.close());

  const get = (url: string, caller: Caller = t.owner) => t.app.inject({ method: 'GET', url, headers: caller.headers });

  test('GET /v1/adnetworks lists every network as { id, name, type, adTag, html5, status }', async () => {
    const res = await get('/v1/adnetworks', viewer);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['response']);
    const list: Listed[] = body.response;
    assert.equal(list.length, 12);
    for (const n of list) assert.deepEqual(Object.keys(n).sort(), ['adTag', 'html5', 'id', 'name', 'status', 'type']);
    assert.deepEqual(list[0], {
      id: 1,
      name: 'IAB standard (generic)',
      type: 'standard',
      adTag: false,
      html5: true,
      status: true,
    });
    assert.deepEqual(
      list.find((n) => n.name === 'Google Ad Manager'),
      { id: 5, name: 'Google Ad Manager', type: 'adServer', adTag: true, html5: true, status: true },
    );
    assert.deepEqual(
      list.find((n) => n.id === 12),
      { id: 12, name: 'Meta (Facebook, Instagram)', type: 'social', adTag: false, html5: false, status: true },
    );
    assert.deepEqual(
      list.map((n) => n.id),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    );
  });

  test('GET /v1/adnetworks carries Deprecation and a Link to its successor, on errors too', async () => {
    const ok = await get('/v1/adnetworks');
    assert.equal(ok.headers.deprecation, 'true');
    assert.equal(ok.headers.link, SUCCESSOR);

    const anonymous = await t.app.inject({ method: 'GET', url: '/v1/adnetworks' });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().code, 'UNAUTHENTICATED');
    assert.equal(anonymous.headers.deprecation, 'true');
    assert.equal(anonymous.headers.link, SUCCESSOR);

    for (const url of ['/v1/adnetworks/forHtml', '/v1/adnetworks/forAdserving']) {
      const current = await get(url);
      assert.equal(current.statusCode, 200);
      assert.equal(current.headers.deprecation, undefined, url);
      assert.equal(current.headers.link, undefined, url);
    }
  });

  test('forAdserving lists the networks with adTag true, each enabled for the team by default', async () => {
    const res = await get('/v1/adnetworks/forAdserving', viewer);
    assert.equal(res.statusCode, 200);
    const list: Listed[] = res.json().response;
    assert.deepEqual(
      list.map((n) => n.id),
      [3, 4, 5, 6, 7, 8, 9, 10, 11],
    );
    for (const n of list) {
      assert.equal(n.adTag, true);
      assert.deepEqual(n.adNetworkTeams, { teamId: t.owner.teamId, adNetworkId: n.id, status: true });
    }
    assert.deepEqual(list[0], {
      id: 3,
      name: 'Campaign Manager 360',
      type: 'adServer',
      adTag: true,
      html5: true,
      status: true,
      adNetworkTeams: { teamId: t.owner.teamId, adNetworkId: 3, status: true },
    });
  });

  test('forHtml lists the networks with html5 true, the generic IAB profile first', async () => {
    const res = await get('/v1/adnetworks/forHtml');
    assert.equal(res.statusCode, 200);
    const list: Listed[] = res.json().response;
    assert.deepEqual(
      list.map((n) => n.id),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    );
    for (const n of list) {
      assert.equal(n.html5, true);
      assert.deepEqual(Object.keys(n).sort(), ['adNetworkTeams', 'adTag', 'html5', 'id', 'name', 'status', 'type']);
      assert.deepEqual(n.adNetworkTeams, { teamId: t.owner.teamId, adNetworkId: n.id, status: true });
    }
  });

  test("a network a team disabled shows status false for that team only; the catalogue's status is unchanged", async () => {
    const other = await t.newTeam('Globex');
    const statuses = createAdNetworkRepository(t.runtime.db.kysely);
    await statuses.setStatus(t.owner.teamId, 5, false);
    await statuses.setStatus(t.owner.teamId, 2, true);

    const mine: Listed[] = (await get('/v1/adnetworks/forHtml')).json().response;
    assert.deepEqual(mine.find((n) => n.id === 5)?.adNetworkTeams, {
      teamId: t.owner.teamId,
      adNetworkId: 5,
      status: false,
    });
    assert.equal(mine.find((n) => n.id === 5)?.status, true);
    assert.deepEqual(mine.find((n) => n.id === 2)?.adNetworkTeams?.status, true);
    assert.deepEqual(
      mine.filter((n) => !n.adNetworkTeams?.status).map((n) => n.id),
      [5],
    );
    const serving: Listed[] = (await get('/v1/adnetworks/forAdserving')).json().response;
    assert.equal(serving.find((n) => n.id === 5)?.adNetworkTeams?.status, false);

    const theirs: Listed[] = (await get('/v1/adnetworks/forHtml', other)).json().response;
    assert.ok(theirs.every((n) => n.adNetworkTeams?.status === true && n.adNetworkTeams.teamId === other.teamId));

    await statuses.setStatus(t.owner.teamId, 5, true);
    const again: Listed[] = (await get('/v1/adnetworks/forHtml')).json().response;
    assert.ok(again.every((n) => n.adNetworkTeams?.status === true));
  });
});
