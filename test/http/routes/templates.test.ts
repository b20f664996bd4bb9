// Designs over HTTP (seed "Templates", SPEC §5 and §11): import, the list with every filter and keyset pages, rename
// and template marking, delete, the document round trip with its automatic version, sizes, editable elements, the
// fonts of a design, moves between folders, what folder and project deletion do to designs, and visibility per role
// and team (404 for what the caller cannot see, 403 for a visible design it may not change).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PNG } from 'pngjs';
import { fontFamily } from '../../../src/render/text/fonts.js';
import { everyType, springSale } from '../../domain/design-fixtures.js';
import { type Caller, linkExpiry, startTestApp, type TestApp } from '../../helpers/app.js';

type Headers = Caller['headers'];
type Response = { statusCode: number; body: string; json(): { code: string; error: string } };
type Doc = ReturnType<typeof springSale>;

const HASH = /^[a-z0-9]{7}$/;

function assertError(res: Response, status: number, code: string, error?: RegExp | string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().code, code);
  if (typeof error === 'string') assert.equal(res.json().error, error);
  else if (error) assert.match(res.json().error, error);
}

/** A document of one or more plain sizes, each with one text element; names and colours chosen by the test. */
function simpleDoc(sizes: Array<{ name: string; width: number; height: number; hash?: string; bg?: string }>): Doc {
  return {
    name: 'Simple',
    sizes: sizes.map((s) => ({
      name: s.name,
      width: s.width,
      height: s.height,
      ...(s.hash && { hash: s.hash }),
      ...(s.bg && { backgroundColor: s.bg }),
      slides: [{ elements: [{ name: 'title', type: 'text', x: 0, y: 0, width: 10, height: 10, text: 'Hi' }] }],
    })),
  };
}

describe('/v1/templates', () => {
  let t: TestApp;
  let kit: number;
  let other: Caller & { teamId: number };
  let otherKit: number;

  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers?: Headers) =>
    t.app.inject({
      method,
      url,
      headers: headers ?? t.owner.headers,
      ...(payload !== undefined && { payload: payload as object }),
    });
  const importDesign = (payload: Record<string, unknown>, headers?: Headers) =>
    inject('POST', '/v1/templates/import', payload, headers);
  const list = (query: string, headers?: Headers) => inject('GET', `/v1/templates${query}`, undefined, headers);

  async function project(name: string, headers: Headers = t.owner.headers, brandKitId = kit): Promise<number> {
    const res = await inject('POST', '/v1/projects', { name, brandKitId }, headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response.project.id;
  }
  async function folder(projectId: number, name: string, parentId?: number): Promise<number> {
    const res = await inject('POST', '/v1/folders', { projectId, name, ...(parentId && { parentId }) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response.folder.id;
  }
  async function design(
    projectId: number,
    name = 'Spring sale',
    extra: Record<string, unknown> = {},
    headers?: Headers,
  ): Promise<string> {
    const res = await importDesign({ projectId, name, document: springSale(), ...extra }, headers);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().response.template.id;
  }
  async function join(projectId: number, userId: number) {
    const res = await inject('POST', '/v1/project/users', { projectId, userId });
    assert.equal(res.statusCode, 200, res.body);
  }
  const row = (hash: string) =>
    t.runtime.db.kysely.selectFrom('designs').selectAll().where('hash', '=', hash).executeTakeFirst();
  /**
   * The thumbUrl of a design once its background thumbnail job ran (issue 14: imports and content changes answer
   * before the thumbnail exists), as GET /v1/templates lists it.
   */
  async function thumbUrlOf(hash: string): Promise<string> {
    await t.runtime.jobs.idle();
    const found = await row(hash);
    assert.ok(found?.thumb_key, `design ${hash} has no thumbnail after its jobs ran`);
    const listed = await list(
      `?projectId=${found.project_id}&keyword=${encodeURIComponent(found.name)}&exactSearch=true`,
    );
    const node = listed.json().response.nodes.find((n: { id: string }) => n.id === hash);
    assert.ok(node?.thumbUrl, listed.body);
    return node.thumbUrl;
  }
  async function sizeRows(hash: string) {
    return t.runtime.db.kysely
      .selectFrom('design_sizes as s')
      .innerJoin('designs as d', 'd.id', 's.design_id')
      .select(['s.hash', 's.position'])
      .where('d.hash', '=', hash)
      .orderBy('s.position')
      .execute();
  }
  /** The events recorded about a design, oldest first, as [action, data]. */
  async function eventsOf(hash: string): Promise<Array<[string, Record<string, unknown>]>> {
    const rows = await t.runtime.db.kysely
      .selectFrom('events_outbox')
      .select(['action', 'payload'])
      .where('team_id', '=', t.owner.teamId)
      .orderBy('occurred_at')
      .execute();
    return rows
      .map((r) => [r.action, JSON.parse(r.payload).data] as [string, Record<string, unknown>])
      .filter(([, data]) => (data.template as { id?: string } | undefined)?.id === hash)
      .map(([action, data]) => [action, data]);
  }
  async function fetchThumb(url: string) {
    const res = await t.download(url);
    assert.equal(res.status, 200, res.body.toString());
    return PNG.sync.read(res.body);
  }

  before(async () => {
    t = await startTestApp();
    kit = (await inject('POST', '/v1/brandkits/create', { name: 'Kit' })).json().response.brandKit.id;
    other = await t.newTeam('Globex');
    otherKit = (await inject('POST', '/v1/brandkits/create', { name: 'Their kit' }, other.headers)).json().response
      .brandKit.id;
  });
  after(() => t.close());

  describe('POST /v1/templates/import', () => {
    test('answers { response: { template } } as listed, and stores the normalised document', async () => {
      const projectId = await project('Import');
      const res = await importDesign({ projectId, name: '  Spring banner  ', document: springSale() });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body), ['response']);
      const template = body.response.template;
      assert.match(template.id, HASH);
      assert.deepEqual(template, {
        id: template.id,
        name: 'Spring banner',
        isTemplate: false,
        projectId,
        apiGenerated: false,
        thumbUrl: template.thumbUrl,
      });
      // The answer does not wait for the thumbnail; a background job draws it. Meanwhile thumbUrl is a signed link
      // to the design's thumbnail (issue 15: always a string), which serves the picture once it exists.
      assert.match(
        template.thumbUrl,
        new RegExp(`^http://placard\\.test/thumbnails/${template.id}\\.png\\?exp=\\d+&sig=`),
      );
      const thumbUrl = await thumbUrlOf(template.id);
      const early = await t.download(template.thumbUrl);
      assert.equal(early.status, 200, early.body.toString());
      assert.ok(early.body.equals((await t.download(thumbUrl)).body));
      assert.ok(thumbUrl.startsWith(`${t.filesBase}/thumbnails/${template.id.slice(0, 2)}/${template.id}-`), thumbUrl);
      assert.match(thumbUrl, t.bucket ? /^[^?]+\.png\?X-Amz-/ : /^[^?]+\.png\?exp=\d+&sig=/);

      const stored = await row(template.id);
      assert.ok(stored);
      assert.equal(stored.name, 'Spring banner');
      assert.equal(stored.team_id, t.owner.teamId);
      assert.equal(stored.project_id, projectId);
      assert.equal(stored.folder_id, null);
      assert.equal(stored.is_template, 0);
      assert.equal(stored.api_generated, 0);
      assert.equal(stored.revision, 1);
      assert.equal(stored.created_by, t.owner.userId);
      assert.equal(stored.updated_at, stored.created_at);
      const doc = JSON.parse(stored.document);
      assert.equal(doc.name, 'Spring banner');
      assert.equal(doc.version, 1);
      assert.match(doc.sizes[0].hash, HASH);
      assert.notEqual(doc.sizes[0].hash, template.id);
      assert.equal(doc.sizes[0].kind, 'system_design');
      assert.equal(doc.sizes[0].measureUnit, 'px');
      assert.equal(doc.sizes[0].slides[0].elements[1].visible, true);
      assert.deepEqual(await sizeRows(template.id), [{ hash: doc.sizes[0].hash, position: 0 }]);

      const events = await eventsOf(template.id);
      assert.deepEqual(events, [['design/create', { template }]]);
    });

    test('the thumbnail is the first size, longest side 400 px, in its background colour', async () => {
      const projectId = await project('Thumbs');
      const doc = simpleDoc([
        { name: 'Leaderboard', width: 728, height: 90, bg: '#0F172A' },
        { name: 'Square', width: 250, height: 250, bg: '#FF0000' },
      ]);
      const res = await importDesign({ projectId, name: 'Wide', document: doc });
      const thumbUrl = await thumbUrlOf(res.json().response.template.id);
      const png = await fetchThumb(thumbUrl);
      assert.deepEqual([png.width, png.height], [400, 49]);
      assert.deepEqual([...png.data.subarray(0, 4)], [15, 23, 42, 255]);
      // Valid 12 hours (SPEC §6).
      const exp = linkExpiry(thumbUrl);
      const expected = Math.floor(Date.now() / 1000) + 12 * 3600;
      assert.ok(Math.abs(exp - expected) <= 5, `exp ${exp} is not about 12 hours from now`);
    });

    test('isTemplate and folderId are stored; a folder of another project is 422, of another team 404', async () => {
      const projectId = await project('Folders');
      const otherProject = await project('Elsewhere');
      const inside = await folder(projectId, 'Banners');
      const res = await importDesign({
        projectId,
        folderId: inside,
        name: 'In folder',
        isTemplate: true,
        document: springSale(),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().response.template.isTemplate, true);
      const stored = await row(res.json().response.template.id);
      assert.equal(stored?.folder_id, inside);
      assert.equal(stored?.is_template, 1);

      const elsewhere = await folder(otherProject, 'Other');
      assertError(
        await importDesign({ projectId, folderId: elsewhere, name: 'X', document: springSale() }),
        422,
        'UNPROCESSABLE',
        `folderId: folder ${elsewhere} belongs to project ${otherProject}, not to project ${projectId}; a design goes into a folder of its own project`,
      );
      const theirProject = await project('Theirs', other.headers, otherKit);
      const theirs = (await inject('POST', '/v1/folders', { projectId: theirProject, name: 'F' }, other.headers)).json()
        .response.folder.id;
      assertError(
        await importDesign({ projectId, folderId: theirs, name: 'X', document: springSale() }),
        404,
        'NOT_FOUND',
        `folderId: folder ${theirs} does not exist or is not visible to the caller`,
      );
      assertError(
        await importDesign({ projectId: theirProject, name: 'X', document: springSale() }),
        404,
        'NOT_FOUND',
        `projectId: project ${theirProject} does not exist or is not visible to the caller`,
      );
    });

    test('a document breaking a rule JSON Schema cannot express is a 400 naming the element path', async () => {
      const projectId = await project('Invalid');
      const document = springSale();
      const elements = (document.sizes[0].slides as { elements: Record<string, unknown>[] }[])[0].elements;
      elements[2].name = 'headline';
      const res = await importDesign({ projectId, name: 'Bad', document });
      assertError(
        res,
        400,
        'VALIDATION_FAILED',
        "document.sizes[0].slides[0].elements[2].name: element name 'headline' is already used in this size by sizes[0].slides[0].elements[1]; names must be unique within a size",
      );
      assert.deepEqual((res.json() as unknown as { details: unknown }).details, [
        {
          path: '/document/sizes/0/slides/0/elements/2/name',
          in: 'body',
          message:
            "element name 'headline' is already used in this size by sizes[0].slides[0].elements[1]; names must be unique within a size",
        },
      ]);
      const count = await t.runtime.db.kysely
        .selectFrom('designs')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('project_id', '=', projectId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0);
    });

    test('body fields are checked: unknown fields, an empty name, a missing document', async () => {
      const projectId = await project('Body');
      assertError(
        await importDesign({ projectId, name: 'X', document: springSale(), colour: 'red' }),
        400,
        'VALIDATION_FAILED',
        /^colour: is not a known field/,
      );
      assertError(
        await importDesign({ projectId, name: '', document: springSale() }),
        400,
        'VALIDATION_FAILED',
        /^name: /,
      );
      assertError(await importDesign({ projectId, name: 'X' }), 400, 'VALIDATION_FAILED', 'document: is required');
    });

    test('a size hash the document brings is kept when free and replaced when another design uses it', async () => {
      const projectId = await project('Hashes');
      const doc = simpleDoc([
        { name: 'A', width: 300, height: 250, hash: 'hhhhhh1' },
        { name: 'B', width: 728, height: 90, hash: 'hhhhhh2' },
      ]);
      const first = (await importDesign({ projectId, name: 'First', document: doc })).json().response.template.id;
      assert.deepEqual(
        (await sizeRows(first)).map((s) => s.hash),
        ['hhhhhh1', 'hhhhhh2'],
      );
      // The same document again (a copy): its hashes belong to the first design, so the copy gets new ones.
      const copy = (await importDesign({ projectId, name: 'Copy', document: doc })).json().response.template.id;
      const copyHashes = (await sizeRows(copy)).map((s) => s.hash);
      assert.equal(copyHashes.length, 2);
      for (const hash of copyHashes) {
        assert.match(hash, HASH);
        assert.ok(!['hhhhhh1', 'hhhhhh2', first, copy].includes(hash));
      }
      // A size hash equal to a design's hash is replaced too: both kinds share one namespace.
      const third = (
        await importDesign({
          projectId,
          name: 'Third',
          document: simpleDoc([{ name: 'A', width: 10, height: 10, hash: first }]),
        })
      ).json().response.template.id;
      assert.notEqual((await sizeRows(third))[0].hash, first);
    });

    test('visibility before permission: Editors in the project import, Viewers 403, others 404, no token 401', async () => {
      const projectId = await project('Roles');
      const editorIn = await t.userWith('Editor');
      const editorOut = await t.userWith('Editor');
      const viewerIn = await t.userWith('Viewer');
      await join(projectId, editorIn.userId);
      await join(projectId, viewerIn.userId);
      const body = { projectId, name: 'By role', document: springSale() };
      assert.equal((await importDesign(body, editorIn.headers)).statusCode, 200);
      assertError(await importDesign(body, editorOut.headers), 404, 'NOT_FOUND');
      assertError(
        await importDesign(body, viewerIn.headers),
        403,
        'FORBIDDEN',
        `project ${projectId}: this change needs the Editor role or a stronger one; the caller is Viewer`,
      );
      assertError(await importDesign(body, other.headers), 404, 'NOT_FOUND');
      assertError(await importDesign(body, {} as Headers), 401, 'UNAUTHENTICATED');
    });
  });

  describe('GET /v1/templates', () => {
    let team: Caller & { teamId: number };
    let teamKit: number;
    let p1: number;
    let p2: number;
    let f1: number;
    const hashes: Record<string, string> = {};
    const names = (res: { json(): { response: { nodes: Array<{ name: string }> } } }) =>
      res.json().response.nodes.map((n) => n.name);
    const listAs = (query: string) => list(query, team.headers);

    before(async () => {
      // A team of its own, so that other tests' designs never show up here.
      team = await t.newTeam('Lister');
      teamKit = (await inject('POST', '/v1/brandkits/create', { name: 'K' }, team.headers)).json().response.brandKit.id;
      p1 = await project('P1', team.headers, teamKit);
      p2 = await project('P2', team.headers, teamKit);
      f1 = (await inject('POST', '/v1/folders', { projectId: p1, name: 'F1' }, team.headers)).json().response.folder.id;
      const specs: Array<[string, number, Record<string, unknown>]> = [
        ['Spring Sale', p1, {}],
        ['spring sale', p1, { isTemplate: true }],
        ['Summer 100%_off', p1, { folderId: f1 }],
        ['Autumn', p2, { isTemplate: true }],
        ['Spring', p2, {}],
        ['Generated', p1, {}],
      ];
      for (const [name, projectId, extra] of specs) {
        hashes[name] = await design(projectId, name, extra, team.headers);
      }
      // Made by an export with changes (SPEC §6): those are listed only with apiGenerated=true.
      await t.runtime.db.kysely
        .updateTable('designs')
        .set({ api_generated: 1 })
        .where('hash', '=', hashes.Generated)
        .execute();
    });

    test('answers { totalCount, nodes, pageInfo } newest first, without API-generated designs', async () => {
      const res = await listAs('');
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(Object.keys(body.response).sort(), ['nodes', 'pageInfo', 'totalCount']);
      assert.equal(body.response.totalCount, 5);
      assert.deepEqual(body.response.pageInfo, { hasNextPage: false, endCursor: body.response.pageInfo.endCursor });
      // UPDATED_AT DESC, ties broken by id in the same direction: the import order reversed.
      assert.deepEqual(names(res), ['Spring', 'Autumn', 'Summer 100%_off', 'spring sale', 'Spring Sale']);
      const node = body.response.nodes.find((n: { name: string }) => n.name === 'Autumn');
      assert.deepEqual(Object.keys(node), ['id', 'name', 'isTemplate', 'projectId', 'apiGenerated', 'thumbUrl']);
      assert.equal(node.id, hashes.Autumn);
      assert.equal(node.isTemplate, true);
      assert.equal(node.projectId, p2);
    });

    test('keyword is a case-insensitive substring; LIKE wildcards are plain characters', async () => {
      assert.deepEqual(names(await listAs('?keyword=SPRING')), ['Spring', 'spring sale', 'Spring Sale']);
      assert.deepEqual(names(await listAs('?keyword=%25_')), ['Summer 100%_off']);
      assert.deepEqual(names(await listAs('?keyword=_')), ['Summer 100%_off']);
      assert.equal((await listAs('?keyword=zzz')).json().response.totalCount, 0);
    });

    test('exactSearch=true matches the whole name, ignoring letter case', async () => {
      assert.deepEqual(names(await listAs('?keyword=spring%20SALE&exactSearch=true')), ['spring sale', 'Spring Sale']);
      assert.deepEqual(names(await listAs('?keyword=spring&exactSearch=true')), ['Spring']);
      assert.deepEqual(names(await listAs('?keyword=sprin&exactSearch=true')), []);
    });

    test('projectId, folderId and onlyTemplates filter; apiGenerated=true lists only API-generated designs', async () => {
      assert.deepEqual(names(await listAs(`?projectId=${p2}`)), ['Spring', 'Autumn']);
      assert.deepEqual(names(await listAs(`?folderId=${f1}`)), ['Summer 100%_off']);
      assert.deepEqual(names(await listAs('?onlyTemplates=true')), ['Autumn', 'spring sale']);
      assert.deepEqual(names(await listAs(`?onlyTemplates=true&projectId=${p1}`)), ['spring sale']);
      const generated = await listAs('?apiGenerated=true');
      assert.deepEqual(names(generated), ['Generated']);
      assert.equal(generated.json().response.nodes[0].apiGenerated, true);
      assert.deepEqual(names(await listAs('?apiGenerated=false')), names(await listAs('')));
      // A project the caller cannot see filters to nothing, as it holds nothing the caller may list.
      assert.equal((await listAs('?projectId=2147483647')).json().response.totalCount, 0);
    });

    test('orderBy NAME ASC pages through equal names without skipping or repeating', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await listAs(`?orderBy=NAME&orderDirection=ASC&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(res.statusCode, 200, res.body);
        const { nodes, pageInfo, totalCount } = res.json().response;
        assert.equal(totalCount, 5);
        seen.push(...nodes.map((n: { id: string }) => n.id));
        cursor = pageInfo.hasNextPage ? pageInfo.endCursor : null;
        pages++;
      } while (cursor);
      assert.equal(pages, 3);
      // "Spring Sale" and "spring sale" tie case-insensitively: the older (smaller id) first in ASC.
      assert.deepEqual(seen, [
        hashes.Autumn,
        hashes.Spring,
        hashes['Spring Sale'],
        hashes['spring sale'],
        hashes['Summer 100%_off'],
      ]);
    });

    test('a cursor of another query is 400 INVALID_CURSOR; limit over 100 is a 400', async () => {
      const first = (await listAs('?limit=1')).json().response.pageInfo.endCursor;
      assertError(await listAs(`?limit=1&keyword=spring&cursor=${first}`), 400, 'INVALID_CURSOR');
      assertError(await listAs('?limit=101'), 400, 'VALIDATION_FAILED', /^limit \(query\): must be <= 100/);
      assertError(await listAs('?projectId=abc'), 400, 'VALIDATION_FAILED', /^projectId \(query\)/);
    });

    test('Editors and Viewers see the designs of their projects only; another team sees none', async () => {
      const editor = await t.userWith('Editor', team);
      const res = await inject('POST', '/v1/project/users', { projectId: p2, userId: editor.userId }, team.headers);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(names(await list('', editor.headers)), ['Spring', 'Autumn']);
      assert.deepEqual(names(await list(`?projectId=${p1}`, editor.headers)), []);
      const viewer = await t.userWith('Viewer', team);
      assert.equal((await list('', viewer.headers)).json().response.totalCount, 0);
      assert.equal((await list('?keyword=Autumn', other.headers)).json().response.totalCount, 0);
    });
  });

  describe('PUT and DELETE /v1/templates', () => {
    test('PUT renames the design and its document (a new revision) and marks it as a template', async () => {
      const projectId = await project('Rename');
      const hash = await design(projectId, 'Old name');
      const res = await inject('PUT', '/v1/templates', { hash, name: ' New name ', isTemplate: true });
      assert.equal(res.statusCode, 200, res.body);
      const template = res.json().response.template;
      assert.deepEqual(
        { ...template, thumbUrl: null },
        {
          id: hash,
          name: 'New name',
          isTemplate: true,
          projectId,
          apiGenerated: false,
          thumbUrl: null,
        },
      );
      const stored = await row(hash);
      assert.equal(stored?.revision, 2);
      assert.equal(JSON.parse(stored?.document ?? '{}').name, 'New name');
      assert.deepEqual((await eventsOf(hash)).map(([action]) => action).sort(), ['design/create', 'design/update']);

      // Only isTemplate: the revision stays.
      const unmark = await inject('PUT', '/v1/templates', { hash, isTemplate: false });
      assert.equal(unmark.json().response.template.isTemplate, false);
      assert.equal((await row(hash))?.revision, 2);
      // Nothing changes: a success that records no event.
      assert.equal((await inject('PUT', '/v1/templates', { hash })).statusCode, 200);
      assert.equal((await eventsOf(hash)).length, 3);
    });

    test('PUT: bad bodies are 400, another team’s design 404, a Viewer in the project 403', async () => {
      const projectId = await project('Rename roles');
      const hash = await design(projectId);
      assertError(
        await inject('PUT', '/v1/templates', { hash, name: 'x', colour: 1 }),
        400,
        'VALIDATION_FAILED',
        /^colour/,
      );
      assertError(
        await inject('PUT', '/v1/templates', { hash: 'NOPE' }),
        400,
        'VALIDATION_FAILED',
        /^hash: must be 7 lowercase/,
      );
      assertError(
        await inject('PUT', '/v1/templates', { hash, name: 'x' }, other.headers),
        404,
        'NOT_FOUND',
        `hash: design ${hash} does not exist or is not visible to the caller`,
      );
      const viewer = await t.userWith('Viewer');
      assertError(await inject('PUT', '/v1/templates', { hash, name: 'x' }, viewer.headers), 404, 'NOT_FOUND');
      await join(projectId, viewer.userId);
      assertError(
        await inject('PUT', '/v1/templates', { hash, name: 'x' }, viewer.headers),
        403,
        'FORBIDDEN',
        `design ${hash}: this change needs the Editor role or a stronger one; the caller is Viewer`,
      );
    });

    test('DELETE removes the design with its sizes, versions and thumbnail, and records design/delete', async () => {
      const projectId = await project('Delete');
      const hash = await design(projectId);
      await inject('PUT', `/v1/templates/${hash}/document`, { document: springSale() });
      await thumbUrlOf(hash);
      const before = await row(hash);
      assert.ok(before?.thumb_key);
      const res = await inject('DELETE', '/v1/templates', { hash });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { response: { status: 'success' } });
      assert.equal(await row(hash), undefined);
      assert.deepEqual(await sizeRows(hash), []);
      const versions = await t.runtime.db.kysely
        .selectFrom('design_versions')
        .select('id')
        .where('design_id', '=', before.id)
        .execute();
      assert.deepEqual(versions, []);
      assert.equal(await t.runtime.blobs.exists(before.thumb_key), false);
      const events = await eventsOf(hash);
      assert.deepEqual(
        events.filter(([action]) => action === 'design/delete'),
        [
          [
            'design/delete',
            {
              template: {
                id: hash,
                name: 'Spring sale',
                isTemplate: false,
                projectId,
                apiGenerated: false,
                thumbUrl: null,
              },
            },
          ],
        ],
      );
      assertError(await inject('DELETE', '/v1/templates', { hash }), 404, 'NOT_FOUND');
    });

    test('DELETE: an Editor outside the project gets 404, a Viewer in it 403', async () => {
      const projectId = await project('Delete roles');
      const hash = await design(projectId);
      const editor = await t.userWith('Editor');
      assertError(await inject('DELETE', '/v1/templates', { hash }, editor.headers), 404, 'NOT_FOUND');
      const viewer = await t.userWith('Viewer');
      await join(projectId, viewer.userId);
      assertError(await inject('DELETE', '/v1/templates', { hash }, viewer.headers), 403, 'FORBIDDEN');
      await join(projectId, editor.userId);
      assert.equal((await inject('DELETE', '/v1/templates', { hash }, editor.headers)).statusCode, 200);
    });
  });

  describe('the design document', () => {
    test('GET answers the stored document; PUT of the same document keeps the size hashes', async () => {
      const projectId = await project('Round trip');
      const hash = await design(projectId);
      const got = await inject('GET', `/v1/templates/${hash}/document`);
      assert.equal(got.statusCode, 200);
      const document = got.json().response;
      assert.equal(document.name, 'Spring sale');
      assert.equal(document.loop, 1);
      assert.deepEqual(document, JSON.parse((await row(hash))?.document ?? ''));

      const put = await inject('PUT', `/v1/templates/${hash}/document`, { document });
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(put.json().response.document, document);
      assert.equal(put.json().response.template.id, hash);
      const again = await inject('GET', `/v1/templates/${hash}/document`);
      assert.deepEqual(again.json().response, document);
    });

    test('ETag and If-Match: a stale save is 412 and changes nothing; no If-Match keeps overwriting', async () => {
      const projectId = await project('Concurrent');
      const hash = await design(projectId);
      const got = await inject('GET', `/v1/templates/${hash}/document`);
      const etag = got.headers.etag as string;
      assert.match(etag, /^"\d+"$/);
      const first = got.json().response as Doc;
      const withIfMatch = (document: Doc, ifMatch: string) =>
        t.app.inject({
          method: 'PUT',
          url: `/v1/templates/${hash}/document`,
          headers: { ...t.owner.headers, 'if-match': ifMatch },
          payload: { document },
        });
      // Tab A saves from the revision it read: accepted, with the next ETag.
      const a = await withIfMatch({ ...first, name: 'Saved by A' }, etag);
      assert.equal(a.statusCode, 200, a.body);
      const next = a.headers.etag as string;
      assert.equal(Number(JSON.parse(next)), Number(JSON.parse(etag)) + 1);
      // Tab B still holds the first revision: 412, the current ETag in the answer, the stored document unchanged.
      const b = await withIfMatch({ ...first, name: 'Saved by B' }, etag);
      assertError(b, 412, 'STALE_REVISION', /saved by someone else since revision/);
      assert.equal(b.headers.etag, next);
      assert.equal(JSON.parse((await row(hash))?.document ?? '').name, 'Saved by A');
      // Overwriting knowingly: the current ETag; and API clients without If-Match are unchanged.
      assert.equal((await withIfMatch({ ...first, name: 'B knowingly' }, next)).statusCode, 200);
      const plain = await inject('PUT', `/v1/templates/${hash}/document`, {
        document: { ...first, name: 'No header' },
      });
      assert.equal(plain.statusCode, 200, plain.body);
      assert.equal(JSON.parse((await row(hash))?.document ?? '').name, 'No header');
      // A malformed If-Match is a 400 naming the header, and saves nothing.
      const bad = await withIfMatch({ ...first, name: 'Bad' }, 'revision 3');
      assertError(bad, 400, 'VALIDATION_FAILED', /If-Match/);
      assert.equal(JSON.parse((await row(hash))?.document ?? '').name, 'No header');
    });

    test('PUT saves the previous content as an automatic version first, bumps the revision, remakes the thumbnail', async () => {
      const projectId = await project('Replace');
      const doc = simpleDoc([
        { name: 'A', width: 300, height: 250, bg: '#000000' },
        { name: 'B', width: 728, height: 90 },
      ]);
      const created = (await importDesign({ projectId, name: 'Replace me', document: doc })).json().response.template;
      await thumbUrlOf(created.id);
      const before = await row(created.id);
      assert.ok(before);
      const [a, b] = (await sizeRows(created.id)).map((s) => s.hash);

      // No hashes in the new document: sizes keep theirs by name and dimensions; a new size gets a new one. The first
      // size is now B (728x90, no background colour): the thumbnail is 400x49 and white.
      const next = simpleDoc([
        { name: 'B', width: 728, height: 90 },
        { name: 'C', width: 160, height: 600, bg: '#FF0000' },
        { name: 'A', width: 300, height: 250 },
      ]);
      next.name = 'Replaced';
      const res = await inject('PUT', `/v1/templates/${created.id}/document`, { document: next });
      assert.equal(res.statusCode, 200, res.body);
      const stored = res.json().response.document;
      assert.equal(stored.sizes[0].hash, b);
      assert.equal(stored.sizes[2].hash, a);
      assert.match(stored.sizes[1].hash, HASH);
      assert.ok(![a, b, created.id].includes(stored.sizes[1].hash));
      assert.equal(stored.sizes[1].kind, 'system_design');
      assert.deepEqual(
        (await sizeRows(created.id)).map((s) => s.hash),
        stored.sizes.map((s: { hash: string }) => s.hash),
      );
      // The document's name is the design's name.
      assert.equal(res.json().response.template.name, 'Replaced');

      assert.match(
        res.json().response.template.thumbUrl,
        /\/thumbnails\/[a-z0-9]+\.png\?exp=/,
        'the answer does not wait for the new thumbnail',
      );
      const thumbUrl = await thumbUrlOf(created.id);
      const after = await row(created.id);
      assert.equal(after?.revision, 2);
      assert.equal(after?.name, 'Replaced');
      assert.ok(before.thumb_key);
      assert.notEqual(after?.thumb_key, before.thumb_key);
      assert.equal(await t.runtime.blobs.exists(before.thumb_key ?? ''), false);
      const png = await fetchThumb(thumbUrl);
      assert.deepEqual([png.width, png.height, ...png.data.subarray(0, 4)], [400, 49, 255, 255, 255, 255]);

      const versions = await t.runtime.db.kysely
        .selectFrom('design_versions')
        .selectAll()
        .where('design_id', '=', before.id)
        .execute();
      assert.equal(versions.length, 1);
      assert.equal(versions[0].automatic, 1);
      assert.equal(versions[0].number, 1);
      assert.equal(versions[0].size_hash, a);
      assert.equal(versions[0].created_by, t.owner.userId);
      assert.deepEqual(JSON.parse(versions[0].document), JSON.parse(before.document));
      // One transaction's events may share a millisecond: compared as a multiset.
      assert.deepEqual((await eventsOf(created.id)).map(([action]) => action).sort(), [
        'design/create',
        'design/update',
        'designVersion/create',
      ]);
    });

    test('an invalid document is a 400 naming the element path, and changes nothing', async () => {
      const projectId = await project('Invalid replace');
      const hash = await design(projectId);
      const document = springSale();
      const elements = (document.sizes[0].slides as { elements: Record<string, unknown>[] }[])[0].elements;
      elements[1].fontSize = -3;
      const res = await inject('PUT', `/v1/templates/${hash}/document`, { document });
      assertError(
        res,
        400,
        'VALIDATION_FAILED',
        /^document\.sizes\[0\]\.slides\[0\]\.elements\[1\]\.fontSize: must be > 0/,
      );
      const other = springSale();
      (other.sizes[0] as Record<string, unknown>).hash = 'dupdup1';
      other.sizes.push({ ...structuredClone(other.sizes[0]), name: 'Second' });
      assertError(
        await inject('PUT', `/v1/templates/${hash}/document`, { document: other }),
        400,
        'VALIDATION_FAILED',
        "document.sizes[1].hash: size hash 'dupdup1' is already used by sizes[0]; size hashes must be distinct",
      );
      assert.equal((await row(hash))?.revision, 1);
    });

    test('GET is open to a Viewer in the project; PUT is 403 for it and 404 for another team', async () => {
      const projectId = await project('Doc roles');
      const hash = await design(projectId);
      const viewer = await t.userWith('Viewer');
      assertError(await inject('GET', `/v1/templates/${hash}/document`, undefined, viewer.headers), 404, 'NOT_FOUND');
      await join(projectId, viewer.userId);
      assert.equal((await inject('GET', `/v1/templates/${hash}/document`, undefined, viewer.headers)).statusCode, 200);
      assertError(
        await inject('PUT', `/v1/templates/${hash}/document`, { document: springSale() }, viewer.headers),
        403,
        'FORBIDDEN',
      );
      assertError(
        await inject('PUT', `/v1/templates/${hash}/document`, { document: springSale() }, other.headers),
        404,
        'NOT_FOUND',
      );
      assertError(
        await inject('GET', '/v1/templates/zzzzzzz/document'),
        404,
        'NOT_FOUND',
        'hash: design zzzzzzz does not exist or is not visible to the caller',
      );
    });
  });

  describe('sizes, elements and fonts of a design', () => {
    let hash: string;
    let sizes: string[];
    before(async () => {
      const projectId = await project('Content');
      const document = everyType() as unknown as Doc;
      delete (document.sizes[0] as Record<string, unknown>).hash;
      delete (document.sizes[1] as Record<string, unknown>).hash;
      const res = await importDesign({ projectId, name: 'Every type', document });
      assert.equal(res.statusCode, 200, res.body);
      hash = res.json().response.template.id;
      sizes = (await sizeRows(hash)).map((s) => s.hash);
    });

    test('GET design-sizes lists the seed’s design size shape', async () => {
      const res = await inject('GET', `/v1/templates/${hash}/design-sizes`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), {
        response: [
          {
            hash: sizes[0],
            name: 'Medium Rectangle',
            kind: 'system_design',
            width: 300,
            height: 250,
            measureUnit: 'px',
          },
          { hash: sizes[1], name: 'Leaderboard', kind: 'system_design', width: 728, height: 90, measureUnit: 'px' },
        ],
      });
      const custom = (
        await importDesign({
          projectId: (await row(hash))?.project_id,
          name: 'Custom',
          document: simpleDoc([{ name: 'Odd', width: 333, height: 111 }]),
        })
      ).json().response.template.id;
      const odd = (await inject('GET', `/v1/templates/${custom}/design-sizes`)).json().response[0];
      assert.equal(odd.kind, 'custom_design');
      assertError(
        await inject('GET', `/v1/templates/${hash}/design-sizes`, undefined, other.headers),
        404,
        'NOT_FOUND',
        `templateHash: design ${hash} does not exist or is not visible to the caller`,
      );
    });

    test('GET elements lists each element once, with its value, link and the attributes it accepts', async () => {
      const res = await inject('GET', `/v1/templates/${hash}/elements`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().response, [
        {
          name: 'headline',
          layerType: 'text',
          value: 'Hello',
          visible: true,
          slideNumber: 0,
          gotoUrl: null,
          attributes: [
            'LABEL',
            'TEXTMARKDOWN',
            'VISIBILITY',
            'FONTVARIANT',
            'FONTFAMILY',
            'TEXTCOLOR',
            'LINEHEIGHT',
            'LETTERSPACING',
          ],
        },
        {
          name: 'photo',
          layerType: 'image',
          value: 'https://cdn.example.com/p.jpg',
          visible: true,
          slideNumber: 0,
          gotoUrl: null,
          attributes: ['SOURCE', 'VISIBILITY'],
        },
        {
          name: 'panel',
          layerType: 'shape',
          value: null,
          visible: true,
          slideNumber: 0,
          gotoUrl: null,
          attributes: ['BGCOLOR', 'VISIBILITY'],
        },
        {
          name: 'cta',
          layerType: 'button',
          value: 'Buy',
          visible: true,
          slideNumber: 0,
          gotoUrl: null,
          attributes: ['LABEL', 'VISIBILITY', 'FONTVARIANT', 'FONTFAMILY', 'TEXTCOLOR', 'BGCOLOR', 'LETTERSPACING'],
        },
        res.json().response[4],
        res.json().response[5],
        res.json().response[6],
        // Only in the second size, on its second slide.
        {
          name: 'badge',
          layerType: 'text',
          value: 'New',
          visible: true,
          slideNumber: 1,
          gotoUrl: null,
          attributes: [
            'LABEL',
            'TEXTMARKDOWN',
            'VISIBILITY',
            'FONTVARIANT',
            'FONTFAMILY',
            'TEXTCOLOR',
            'LINEHEIGHT',
            'LETTERSPACING',
          ],
        },
      ]);
      const [logo, embed, clip] = res.json().response.slice(4, 7);
      assert.deepEqual([logo.name, logo.layerType, logo.attributes.includes('SVGCOLORS')], ['logo', 'svg', true]);
      assert.deepEqual([embed.name, embed.layerType, embed.value], ['embed', 'code', '<div>hi</div>']);
      assert.deepEqual([clip.name, clip.layerType, clip.value], ['clip', 'video', 'https://cdn.example.com/v.mp4']);
    });

    test('the link of an element is its gotoUrl; a hidden element says so', async () => {
      const projectId = (await row(hash))?.project_id;
      const document = springSale();
      const elements = (document.sizes[0].slides as { elements: Record<string, unknown>[] }[])[0].elements;
      elements[0].visible = false;
      const h = (await importDesign({ projectId, name: 'Links', document })).json().response.template.id;
      const list = (await inject('GET', `/v1/templates/${h}/elements`)).json().response;
      assert.equal(list[0].visible, false);
      assert.equal(list[2].gotoUrl, 'https://example.com');
    });

    test('fontVariants?templateHash lists the families of its text and buttons, each once, with their variants', async () => {
      const inter = fontFamily('Inter')?.variants;
      const lato = fontFamily('Lato')?.variants;
      const all = await inject('GET', `/v1/templates/fontVariants?templateHash=${hash}`);
      assert.equal(all.statusCode, 200, all.body);
      assert.deepEqual(all.json(), {
        response: [
          { fontFamily: 'Inter', variants: inter },
          { fontFamily: 'Lato', variants: lato },
        ],
      });
      // headline is Inter in the first size and Lato in the second: both count.
      const headline = await inject('GET', `/v1/templates/fontVariants?templateHash=${hash}&elementName=headline`);
      assert.deepEqual(
        headline.json().response.map((f: { fontFamily: string }) => f.fontFamily),
        ['Inter', 'Lato'],
      );
      const cta = await inject('GET', `/v1/templates/fontVariants?templateHash=${hash}&elementName=cta`);
      assert.deepEqual(cta.json().response, [{ fontFamily: 'Inter', variants: inter }]);
      const photo = await inject('GET', `/v1/templates/fontVariants?templateHash=${hash}&elementName=photo`);
      assert.deepEqual(photo.json(), { response: [] });
      assertError(
        await inject('GET', `/v1/templates/fontVariants?templateHash=${hash}&elementName=nope`),
        422,
        'UNKNOWN_ELEMENT',
        `elementName (query): no size of design ${hash} has an element named "nope"; valid names: badge, clip, cta, embed, headline, logo, panel, photo`,
      );
      assertError(
        await inject('GET', `/v1/templates/fontVariants?templateHash=${hash}`, undefined, other.headers),
        404,
        'NOT_FOUND',
      );
    });

    test('a family outside the catalogue is listed without variants', async () => {
      const projectId = (await row(hash))?.project_id;
      const document = springSale();
      const elements = (document.sizes[0].slides as { elements: Record<string, unknown>[] }[])[0].elements;
      elements[1].fontFamily = 'Brand Sans';
      const h = (await importDesign({ projectId, name: 'Brand font', document })).json().response.template.id;
      const res = await inject('GET', `/v1/templates/fontVariants?templateHash=${h}`);
      assert.deepEqual(
        res
          .json()
          .response.map((f: { fontFamily: string; variants: string[] }) => [f.fontFamily, f.variants.length > 0]),
        [
          ['Brand Sans', false],
          ['Inter', true],
        ],
      );
    });
  });

  describe('POST /v1/moveDesignToFolder', () => {
    const move = (payload: unknown, headers?: Headers) => inject('POST', '/v1/moveDesignToFolder', payload, headers);

    test('moves into a folder of the project and back to the root with -1', async () => {
      const projectId = await project('Move');
      const hash = await design(projectId);
      const target = await folder(projectId, 'Target');
      const res = await move({ designHash: hash, folderId: target });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { response: true });
      assert.equal((await row(hash))?.folder_id, target);
      assert.deepEqual(
        (await list(`?folderId=${target}`)).json().response.nodes.map((n: { id: string }) => n.id),
        [hash],
      );
      assert.deepEqual((await move({ designHash: hash, folderId: -1 })).json(), { response: true });
      assert.equal((await row(hash))?.folder_id, null);
    });

    test('a folder of another project is 422 INVALID_MOVE; invisible designs and folders are 404', async () => {
      const projectId = await project('Move rules');
      const elsewhere = await project('Move elsewhere');
      const hash = await design(projectId);
      const far = await folder(elsewhere, 'Far');
      assertError(
        await move({ designHash: hash, folderId: far }),
        422,
        'INVALID_MOVE',
        `folderId: folder ${far} belongs to project ${elsewhere}, but design ${hash} is in project ${projectId}; a design moves only between folders of its own project`,
      );
      const theirProject = await project('Their move', other.headers, otherKit);
      const theirFolder = (
        await inject('POST', '/v1/folders', { projectId: theirProject, name: 'F' }, other.headers)
      ).json().response.folder.id;
      const theirDesign = await design(theirProject, 'Theirs', {}, other.headers);
      assertError(
        await move({ designHash: hash, folderId: theirFolder }),
        404,
        'NOT_FOUND',
        `folderId: folder ${theirFolder} does not exist or is not visible to the caller`,
      );
      assertError(
        await move({ designHash: theirDesign, folderId: -1 }),
        404,
        'NOT_FOUND',
        `designHash: design ${theirDesign} does not exist or is not visible to the caller`,
      );
      assertError(await move({ designHash: hash, folderId: 0 }), 400, 'VALIDATION_FAILED', /^folderId: /);
      assertError(await move({ designHash: hash }), 400, 'VALIDATION_FAILED', 'folderId: is required');
      assert.equal((await row(hash))?.folder_id, null);
    });

    test('an Editor outside the project gets 404, a Viewer in it 403, an Editor in it moves', async () => {
      const projectId = await project('Move roles');
      const hash = await design(projectId);
      const target = await folder(projectId, 'T');
      const editor = await t.userWith('Editor');
      const viewer = await t.userWith('Viewer');
      assertError(await move({ designHash: hash, folderId: target }, editor.headers), 404, 'NOT_FOUND');
      await join(projectId, viewer.userId);
      assertError(
        await move({ designHash: hash, folderId: target }, viewer.headers),
        403,
        'FORBIDDEN',
        `design ${hash}: this change needs the Editor role or a stronger one; the caller is Viewer`,
      );
      await join(projectId, editor.userId);
      assert.equal((await move({ designHash: hash, folderId: target }, editor.headers)).statusCode, 200);
    });
  });

  describe('deleting folders and projects', () => {
    test('a deleted folder’s designs move up to its parent', async () => {
      const projectId = await project('Folder delete');
      const parent = await folder(projectId, 'Parent');
      const child = await folder(projectId, 'Child', parent);
      const inChild = await design(projectId, 'In child', { folderId: child });
      const inParent = await design(projectId, 'In parent', { folderId: parent });
      assert.equal((await inject('DELETE', '/v1/folders', { folderId: child })).statusCode, 200);
      assert.equal((await row(inChild))?.folder_id, parent);
      assert.equal((await inject('DELETE', '/v1/folders', { folderId: parent })).statusCode, 200);
      assert.equal((await row(inChild))?.folder_id, null);
      assert.equal((await row(inParent))?.folder_id, null);
    });

    test('a deleted project takes its designs, their sizes, versions and thumbnails with it', async () => {
      const projectId = await project('Project delete');
      const hash = await design(projectId);
      await inject('PUT', `/v1/templates/${hash}/document`, { document: springSale() });
      await thumbUrlOf(hash);
      const before = await row(hash);
      assert.ok(before?.thumb_key);
      const res = await inject('DELETE', '/v1/projects', { projectId });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(await row(hash), undefined);
      assert.deepEqual(await sizeRows(hash), []);
      const versions = await t.runtime.db.kysely
        .selectFrom('design_versions')
        .select('id')
        .where('design_id', '=', before.id)
        .execute();
      assert.deepEqual(versions, []);
      assert.equal(await t.runtime.blobs.exists(before.thumb_key), false);
    });
  });
});
