// Design versions over HTTP (seed "Design versions", SPEC §11): snapshots of the whole document, listed newest first
// in the seed's shape, addressed by a design hash or one of its size hashes; renames; restores that first save the
// current content as an automatic version; the designVersion/create event; visibility per role and team.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { avatarUrl } from '../../../src/services/avatar.js';
import { springSale } from '../../domain/design-fixtures.js';
import { type Caller, startTestApp, type TestApp } from '../../helpers/app.js';

type Headers = Caller['headers'];
type Response = { statusCode: number; body: string; json(): { code: string; error: string } };

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function assertError(res: Response, status: number, code: string, error?: RegExp | string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().code, code);
  if (typeof error === 'string') assert.equal(res.json().error, error);
  else if (error) assert.match(res.json().error, error);
}

/** Spring sale with a second size, so that versions can be addressed by either size hash. */
function twoSizes(headline = 'Spring sale') {
  const doc = springSale();
  const first = doc.sizes[0] as { slides: { elements: Record<string, unknown>[] }[] };
  first.slides[0].elements[1].text = headline;
  doc.sizes.push({ ...structuredClone(doc.sizes[0]), name: 'Square', width: 250, height: 250 });
  return doc;
}

interface Version {
  id: string;
  lastModified: string;
  lastModifiedByName: string;
  lastModifiedByProfilePicture: string;
  versionName: string;
  sizeHash: string;
}

describe('/v1/designVersion', () => {
  let t: TestApp;
  let kit: number;
  let projectId: number;
  let other: Caller & { teamId: number };

  const inject = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers?: Headers) =>
    t.app.inject({
      method,
      url,
      headers: headers ?? t.owner.headers,
      ...(payload !== undefined && { payload: payload as object }),
    });
  const versions = async (hash: string, headers?: Headers): Promise<Version[]> => {
    const res = await inject('GET', `/v1/designVersion?hash=${hash}`, undefined, headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response;
  };
  const save = (hash: string, versionName: string, headers?: Headers) =>
    inject('POST', '/v1/designVersion', { hash, versionName }, headers);
  const headline = async (hash: string) =>
    (await inject('GET', `/v1/templates/${hash}/document`)).json().response.sizes[0].slides[0].elements[1].text;

  async function design(document: unknown = twoSizes()) {
    const res = await inject('POST', '/v1/templates/import', { projectId, name: 'Versioned', document });
    assert.equal(res.statusCode, 200, res.body);
    const hash: string = res.json().response.template.id;
    const sizes = (await inject('GET', `/v1/templates/${hash}/design-sizes`)).json().response;
    return { hash, sizes: sizes.map((s: { hash: string }) => s.hash) as string[] };
  }
  async function eventsOf(hash: string, action: string) {
    const rows = await t.runtime.db.kysely
      .selectFrom('events_outbox')
      .select('payload')
      .where('action', '=', action)
      .orderBy('occurred_at')
      .execute();
    return rows.map((r) => JSON.parse(r.payload)).filter((p) => p.data.template.id === hash);
  }
  const revision = async (hash: string) =>
    (
      await t.runtime.db.kysely
        .selectFrom('designs')
        .select('revision')
        .where('hash', '=', hash)
        .executeTakeFirstOrThrow()
    ).revision;

  before(async () => {
    t = await startTestApp();
    kit = (await inject('POST', '/v1/brandkits/create', { name: 'Kit' })).json().response.brandKit.id;
    projectId = (await inject('POST', '/v1/projects', { name: 'Versions', brandKitId: kit })).json().response.project
      .id;
    other = await t.newTeam('Globex');
  });
  after(() => t.close());

  test('a new design has no versions', async () => {
    const { hash } = await design();
    assert.deepEqual(await inject('GET', `/v1/designVersion?hash=${hash}`).then((r) => r.json()), { response: [] });
  });

  test('POST saves the current content; GET lists it in the seed’s shape, newest first', async () => {
    const { hash, sizes } = await design();
    const res = await save(hash, 'First draft');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { response: { status: 'success' } });
    // By a size hash: that size is the version's sizeHash.
    assert.deepEqual((await save(sizes[1], 'Square tweak')).json(), { response: { status: 'success' } });

    const list = await versions(hash);
    assert.equal(list.length, 2);
    const picture = avatarUrl(t.config.publicUrl, t.runtime.keys, t.owner.userId);
    assert.deepEqual(list, [
      {
        id: list[0].id,
        lastModified: list[0].lastModified,
        lastModifiedByName: 'Acme Owner',
        lastModifiedByProfilePicture: picture,
        versionName: 'Square tweak',
        sizeHash: sizes[1],
      },
      {
        id: list[1].id,
        lastModified: list[1].lastModified,
        lastModifiedByName: 'Acme Owner',
        lastModifiedByProfilePicture: picture,
        versionName: 'First draft',
        sizeHash: sizes[0],
      },
    ]);
    for (const v of list) {
      assert.match(v.id, UUID);
      assert.match(v.lastModified, ISO_MS);
    }
    // Either hash lists every version of the design: a version is the whole document.
    assert.deepEqual(await versions(sizes[1]), list);
    assert.deepEqual(await versions(sizes[0]), list);

    const row = await t.runtime.db.kysely
      .selectFrom('design_versions as v')
      .innerJoin('designs as d', 'd.id', 'v.design_id')
      .select(['v.document', 'v.automatic', 'v.number', 'd.document as current'])
      .where('v.id', '=', list[1].id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(row.document), JSON.parse(row.current));
    assert.equal(row.automatic, 0);
    assert.equal(row.number, 1);
    // Saving a version is not a change of the design.
    assert.equal(await revision(hash), 1);

    const events = await eventsOf(hash, 'designVersion/create');
    assert.equal(events.length, 2);
    assert.deepEqual(events[0].data.version, {
      id: list[1].id,
      versionName: 'First draft',
      sizeHash: sizes[0],
      automatic: false,
      createdAt: list[1].lastModified,
      createdByUser: { id: t.owner.userId, name: 'Acme Owner' },
    });
    assert.equal(events[0].data.template.id, hash);
    assert.equal(events[0].teamId, t.owner.teamId);
  });

  test('PUT renames a version; a versionId the design does not have is a 404', async () => {
    const { hash } = await design();
    const elsewhere = await design();
    await save(hash, 'Old name');
    await save(elsewhere.hash, 'Someone else’s');
    const [version] = await versions(hash);
    const [foreign] = await versions(elsewhere.hash);
    const res = await inject('PUT', '/v1/designVersion', { hash, versionId: version.id, versionName: 'New name' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { response: { status: 'success' } });
    const [renamed] = await versions(hash);
    assert.deepEqual(renamed, { ...version, versionName: 'New name' });

    assertError(
      await inject('PUT', '/v1/designVersion', { hash, versionId: 'no-such-version', versionName: 'x' }),
      404,
      'NOT_FOUND',
      `versionId: design ${hash} has no version "no-such-version"`,
    );
    assertError(
      await inject('PUT', '/v1/designVersion', { hash, versionId: foreign.id, versionName: 'x' }),
      404,
      'NOT_FOUND',
    );
    assert.equal((await versions(elsewhere.hash))[0].versionName, 'Someone else’s');
  });

  test('restore first saves the current content as an automatic version, then replaces it', async () => {
    const { hash, sizes } = await design(twoSizes('Version one'));
    await save(hash, 'One');
    const put = await inject('PUT', `/v1/templates/${hash}/document`, { document: twoSizes('Version two') });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal(await headline(hash), 'Version two');
    assert.equal(await revision(hash), 2);

    const [automatic, one] = await versions(hash);
    assert.equal(automatic.versionName, 'Before the document was replaced');
    assert.equal(automatic.sizeHash, sizes[0]);
    assert.equal(one.versionName, 'One');

    const res = await inject('POST', '/v1/designVersion/restore', { hash: sizes[1], versionId: one.id });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { response: { status: 'success' } });
    assert.equal(await headline(hash), 'Version one');
    assert.equal(await revision(hash), 3);
    // The sizes keep their hashes.
    const now = (await inject('GET', `/v1/templates/${hash}/design-sizes`)).json().response;
    assert.deepEqual(
      now.map((s: { hash: string }) => s.hash),
      sizes,
    );

    const list = await versions(hash);
    assert.deepEqual(
      list.map((v) => v.versionName),
      ['Before restoring “One”', 'Before the document was replaced', 'One'],
    );
    // The restore can be undone: the automatic version holds "Version two".
    const undo = await inject('POST', '/v1/designVersion/restore', { hash, versionId: list[0].id });
    assert.equal(undo.statusCode, 200, undo.body);
    assert.equal(await headline(hash), 'Version two');
    assert.equal((await versions(hash)).length, 4);

    const rows = await t.runtime.db.kysely
      .selectFrom('design_versions')
      .select(['automatic', 'number'])
      .where(
        'id',
        'in',
        list.map((v) => v.id),
      )
      .orderBy('number')
      .execute();
    assert.deepEqual(rows, [
      { automatic: 0, number: 1 },
      { automatic: 1, number: 2 },
      { automatic: 1, number: 3 },
    ]);
    // Events of one transaction may share a millisecond, so compare them as a multiset.
    const actions = (await t.runtime.db.kysely.selectFrom('events_outbox').select(['action', 'payload']).execute())
      .filter((r) => JSON.parse(r.payload).data.template?.id === hash)
      .map((r) => r.action)
      .sort();
    assert.deepEqual(actions, [
      'design/create',
      'design/update',
      'design/update',
      'design/update',
      'designVersion/create',
      'designVersion/create',
      'designVersion/create',
      'designVersion/create',
    ]);
  });

  test("GET /v1/designVersion/document answers the version's document (the preview) and changes nothing", async () => {
    const { hash, sizes } = await design(twoSizes('Kept one'));
    await save(hash, 'Kept');
    const put = await inject('PUT', `/v1/templates/${hash}/document`, { document: twoSizes('Later one') });
    assert.equal(put.statusCode, 200, put.body);
    const kept = (await versions(hash)).find((v) => v.versionName === 'Kept') as Version;
    const res = await inject('GET', `/v1/designVersion/document?hash=${sizes[1]}&versionId=${kept.id}`);
    assert.equal(res.statusCode, 200, res.body);
    const doc = res.json().response;
    assert.equal(doc.sizes[0].slides[0].elements.find((e: { name: string }) => e.name === 'headline').text, 'Kept one');
    assert.equal(await headline(hash), 'Later one');
    assert.equal(await revision(hash), 2);
    assertError(
      await inject('GET', `/v1/designVersion/document?hash=${hash}&versionId=nope`),
      404,
      'NOT_FOUND',
      `versionId: design ${hash} has no version "nope"`,
    );
    assertError(await inject('GET', `/v1/designVersion/document?hash=${hash}`), 400, 'VALIDATION_FAILED');
  });

  test('restore of an unknown version is a 404 and changes nothing', async () => {
    const { hash } = await design();
    assertError(
      await inject('POST', '/v1/designVersion/restore', { hash, versionId: '5b0e8c1e-2f7a-4c55-9a4e-0f6f2b1c3d4e' }),
      404,
      'NOT_FOUND',
      `versionId: design ${hash} has no version "5b0e8c1e-2f7a-4c55-9a4e-0f6f2b1c3d4e"`,
    );
    assert.deepEqual(await versions(hash), []);
    assert.equal(await revision(hash), 1);
  });

  test('bodies and hashes are validated, naming the field', async () => {
    const { hash } = await design();
    assertError(await save(hash, ''), 400, 'VALIDATION_FAILED', /^versionName: /);
    assertError(
      await inject('POST', '/v1/designVersion', { hash, versionName: 'x', note: 1 }),
      400,
      'VALIDATION_FAILED',
      /^note: is not a known field/,
    );
    assertError(
      await inject('POST', '/v1/designVersion', { versionName: 'x' }),
      400,
      'VALIDATION_FAILED',
      'hash: is required',
    );
    assertError(
      await inject('GET', '/v1/designVersion?hash=ABC'),
      400,
      'VALIDATION_FAILED',
      /^hash \(query\): must be 7 lowercase/,
    );
    assertError(await inject('GET', '/v1/designVersion'), 400, 'VALIDATION_FAILED', /^hash \(query\): is required/);
    assertError(
      await inject('PUT', '/v1/designVersion', { hash, versionName: 'x' }),
      400,
      'VALIDATION_FAILED',
      'versionId: is required',
    );
    assertError(
      await inject('GET', '/v1/designVersion?hash=zzzzzzz'),
      404,
      'NOT_FOUND',
      'hash: no design or size of a design with hash zzzzzzz exists or is visible to the caller',
    );
  });

  test('visibility before permission: Viewers in the project read, write 403; others 404; no token 401', async () => {
    const { hash, sizes } = await design();
    await save(hash, 'Existing');
    const [existing] = await versions(hash);
    const viewer = await t.userWith('Viewer');
    const editor = await t.userWith('Editor');
    const writes = (headers: Headers) => [
      save(hash, 'x', headers),
      inject('PUT', '/v1/designVersion', { hash, versionId: existing.id, versionName: 'x' }, headers),
      inject('POST', '/v1/designVersion/restore', { hash: sizes[0], versionId: existing.id }, headers),
    ];
    for (const caller of [viewer, editor, other]) {
      assertError(await inject('GET', `/v1/designVersion?hash=${hash}`, undefined, caller.headers), 404, 'NOT_FOUND');
      for (const res of await Promise.all(writes(caller.headers))) assertError(res, 404, 'NOT_FOUND');
    }
    for (const userId of [viewer.userId, editor.userId]) {
      const res = await inject('POST', '/v1/project/users', { projectId, userId });
      assert.equal(res.statusCode, 200);
    }
    assert.equal((await versions(hash, viewer.headers)).length, 1);
    for (const res of await Promise.all(writes(viewer.headers))) {
      assertError(
        res,
        403,
        'FORBIDDEN',
        `design ${hash}: this change needs the Editor role or a stronger one; the caller is Viewer`,
      );
    }
    assert.equal((await save(hash, 'By the editor', editor.headers)).statusCode, 200);
    const [latest] = await versions(hash);
    assert.equal(latest.versionName, 'By the editor');
    assert.equal(latest.lastModifiedByName, 'Editor ' + editor.email.match(/\d+/)?.[0]);
    assertError(
      await inject('GET', `/v1/designVersion?hash=${hash}`, undefined, {} as Headers),
      401,
      'UNAUTHENTICATED',
    );
  });
});
