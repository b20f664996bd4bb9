// recordEvent writes one pending outbox row carrying the SPEC §8 payload, inside the caller's transaction; creating
// and deleting a team user records user/create and user/delete with the user as GET /v1/users shows it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordEvent } from '../../src/events/outbox.js';
import { createEventRepository } from '../../src/storage/db/repositories/events.repository.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('recordEvent', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const rowsOf = (teamId: number) => createEventRepository(t.runtime.db.kysely).listByTeam(teamId);

  test('inserts a pending row, due at once, whose payload is { id, action, teamId, occurredAt, data }', async () => {
    const team = await t.newTeam('Outbox');
    const data = { export: { id: 'e1', status: 'complete', nested: [1, 'two', null] } };
    const payload = await recordEvent(t.runtime.db.kysely, { teamId: team.teamId, action: 'export/complete', data });

    assert.deepEqual(Object.keys(payload), ['id', 'action', 'teamId', 'occurredAt', 'data']);
    assert.match(payload.id, UUID_V4);
    assert.match(payload.occurredAt, ISO_MS);
    assert.deepEqual(
      { ...payload, id: '', occurredAt: '' },
      {
        id: '',
        action: 'export/complete',
        teamId: team.teamId,
        occurredAt: '',
        data,
      },
    );

    const rows = await rowsOf(team.teamId);
    assert.equal(rows.length, 1);
    // The app's dispatcher may already have taken the row (events/deliveries.ts): pending, or dispatched since.
    const { status, attempts, ...row } = rows[0];
    assert.ok(status === 'pending' ? attempts === 0 : status === 'dispatched', `${status} after ${attempts}`);
    assert.deepEqual(row, {
      id: payload.id,
      team_id: team.teamId,
      action: 'export/complete',
      payload: JSON.stringify(payload),
      occurred_at: payload.occurredAt,
      next_attempt_at: payload.occurredAt,
    });
  });

  test('each event gets its own id', async () => {
    const team = await t.newTeam('Ids');
    const a = await recordEvent(t.runtime.db.kysely, { teamId: team.teamId, action: 'design/create', data: {} });
    const b = await recordEvent(t.runtime.db.kysely, { teamId: team.teamId, action: 'design/create', data: {} });
    assert.notEqual(a.id, b.id);
    assert.deepEqual((await rowsOf(team.teamId)).map((r) => r.id).sort(), [a.id, b.id].sort());
  });

  test('written inside a transaction, the event exists only if the transaction commits', async () => {
    const team = await t.newTeam('Tx');
    await assert.rejects(
      t.runtime.db.kysely.transaction().execute(async (tx) => {
        await recordEvent(tx, { teamId: team.teamId, action: 'project/create', data: { project: { id: 1 } } });
        throw new Error('the change failed');
      }),
      /the change failed/,
    );
    assert.deepEqual(await rowsOf(team.teamId), []);

    const kept = await t.runtime.db.kysely
      .transaction()
      .execute((tx) =>
        recordEvent(tx, { teamId: team.teamId, action: 'project/create', data: { project: { id: 2 } } }),
      );
    assert.deepEqual(
      (await rowsOf(team.teamId)).map((r) => JSON.parse(r.payload)),
      [kept],
    );
  });
});

describe('team user events', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const events = async () =>
    (await createEventRepository(t.runtime.db.kysely).listByTeam(t.owner.teamId)).map((r) => JSON.parse(r.payload));

  async function listedUser(email: string) {
    const res = await t.app.inject({ method: 'GET', url: '/v1/users?limit=100', headers: t.owner.headers });
    return res.json().response.nodes.find((n: { email: string }) => n.email === email);
  }

  test('POST /v1/users records user/create with data.user as GET /v1/users lists it', async () => {
    const before = (await events()).length;
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { name: 'Ada Lovelace', email: 'ada@acme.test', role: 'editor' },
    });
    assert.equal(res.statusCode, 200);
    const created = await events();
    assert.equal(created.length, before + 1);
    const event = created.find((e) => e.action === 'user/create' && e.data.user.email === 'ada@acme.test');
    assert.deepEqual(Object.keys(event), ['id', 'action', 'teamId', 'occurredAt', 'data']);
    assert.equal(event.action, 'user/create');
    assert.equal(event.teamId, t.owner.teamId);
    assert.match(event.id, UUID_V4);
    assert.match(event.occurredAt, ISO_MS);
    assert.deepEqual(event.data, { user: await listedUser('ada@acme.test') });
    assert.deepEqual(event.data.user.role, {
      id: 3,
      name: 'Editor',
      description: 'Creates, changes and deletes designs, folders, versions, projects and brand kits.',
    });
    assert.equal(event.data.user.id, res.json().response.id);
  });

  test('DELETE /v1/users records user/delete with the user as it was', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { name: 'Alan Turing', email: 'alan@acme.test', role: 'Viewer' },
    });
    const user = await listedUser('alan@acme.test');
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: 'alan@acme.test' },
    });
    assert.equal(res.statusCode, 200);
    // Found by action: two events of the same millisecond have no defined order.
    const deletions = (await events()).filter((e) => e.action === 'user/delete');
    assert.equal(deletions.length, 1);
    const [event] = deletions;
    assert.equal(event.teamId, t.owner.teamId);
    assert.deepEqual(event.data, { user });
  });

  test('a refused creation or deletion records nothing', async () => {
    const before = await events();
    const taken = await t.app.inject({
      method: 'POST',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { name: 'Ada again', email: 'ADA@acme.test', role: 'Viewer' },
    });
    assert.equal(taken.statusCode, 409);
    const missing = await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: 'nobody@acme.test' },
    });
    assert.equal(missing.statusCode, 404);
    const lastOwner = await t.app.inject({
      method: 'DELETE',
      url: '/v1/users',
      headers: t.owner.headers,
      payload: { email: t.owner.email },
    });
    assert.equal(lastOwner.statusCode, 409);
    assert.deepEqual(await events(), before);
  });
});
