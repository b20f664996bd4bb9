import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../../helpers/app.js';

describe('team users', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('lists the users of the team with the seed shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/users', headers: t.owner.headers });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.response.totalCount, 1);
    const [node] = body.response.nodes;
    assert.deepEqual(Object.keys(node).sort(), ['email', 'id', 'name', 'profilePicture', 'role']);
    assert.deepEqual(node.role, {
      id: 1,
      name: 'Owner',
      description: 'Everything an Admin can do; cannot be deleted or demoted by an Admin.',
    });
    assert.equal(body.response.pageInfo.hasNextPage, false);
  });
});
