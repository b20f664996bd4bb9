// A new design's hash and its sizes' hashes are unique across designs and sizes, checked in one statement inside the
// import's transaction (issue 21), or on PostgreSQL, for fresh ones, refused by the unique indexes and migration 0027's
// triggers; a new hash that is taken makes the import start again with another. The hashes are
// random (one collision in about 10^10), so the test hands the service taken ones through its `newHash` seam.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Expression, type OperationNodeSource, type QueryCreator, sql } from 'kysely';
import { OWNER } from '../../src/domain/permissions.js';
import { createAccess } from '../../src/services/access.js';
import { createDesignService, type ImportOptions, importDesign } from '../../src/services/design.service.js';
import { createThumbnails } from '../../src/services/thumbnail.js';
import { type Db, openDatabase } from '../../src/storage/db/database.js';
import { createBrandKitRepository } from '../../src/storage/db/repositories/brand-kits.repository.js';
import { createFolderRepository } from '../../src/storage/db/repositories/folders.repository.js';
import { createProjectRepository } from '../../src/storage/db/repositories/projects.repository.js';
import type { Database } from '../../src/storage/db/schema.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let projectId: number;
let kit: number;

before(async () => {
  t = await startTestApp();
  const inject = (url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: t.owner.headers, payload });
  kit = (await inject('/v1/brandkits/create', { name: 'Kit' })).json().response.brandKit.id;
  projectId = (await inject('/v1/projects', { name: 'Hashes', brandKitId: kit })).json().response.project.id;
});
after(() => t?.close());

function doc(sizeHash?: string) {
  return {
    name: 'Doc',
    sizes: [
      {
        name: 'Banner',
        width: 300,
        height: 250,
        ...(sizeHash && { hash: sizeHash }),
        slides: [{ elements: [{ name: 'title', type: 'text', x: 0, y: 0, width: 100, height: 20, text: 'Hi' }] }],
      },
    ],
  };
}

async function sizeHashesOf(designHash: string): Promise<string[]> {
  const rows = await t.runtime.db.kysely
    .selectFrom('design_sizes as s')
    .innerJoin('designs as d', 'd.id', 's.design_id')
    .select('s.hash')
    .where('d.hash', '=', designHash)
    .execute();
  return rows.map((r) => r.hash);
}

test('a taken design hash or size hash as the new hash makes the import start again; a taken size hash is replaced', async () => {
  const actor = { userId: t.owner.userId, teamId: t.owner.teamId, roleId: OWNER, name: 'Owner', credentialId: 0 };
  const first = await importDesign(t.runtime, actor, { projectId, name: 'First', document: doc('sizeaaa') });
  assert.deepEqual(await sizeHashesOf(first.template.id), ['sizeaaa'], 'a free hash the document brings is kept');

  const offered = [first.template.id, 'sizeaaa', 'bbbbbbb'];
  const second = await importDesign(
    t.runtime,
    actor,
    { projectId, name: 'Second', document: doc('sizeaaa') },
    { newHash: () => offered.shift() as string },
  );
  assert.equal(second.template.id, 'bbbbbbb', 'the first free hash offered');
  assert.equal(offered.length, 0);
  const [size] = await sizeHashesOf('bbbbbbb');
  assert.match(size, /^[a-z0-9]{7}$/);
  assert.notEqual(size, 'sizeaaa', "another design's size hash is not taken over");
  assert.deepEqual(await sizeHashesOf(first.template.id), ['sizeaaa'], 'the first design keeps its size');
  const named = await t.runtime.db.kysely.selectFrom('designs').select('name').where('name', '=', 'Second').execute();
  assert.equal(named.length, 1, 'the attempts with taken hashes left nothing behind');

  // Without collisions: the new hash and the size hashes are one statement, and a new design deletes no sizes.
  const own = ownDatabase();
  let third: number;
  try {
    await importDesign({ db: own, blobs: t.runtime.blobs }, actor, { projectId, name: 'Third', document: doc() });
    third = own.statements();
  } finally {
    await own.close();
  }
  // The project; begin, the hashes, the design, its size, its design/create event, commit. It was 11 before: the new
  // hash checked on its own before the transaction, each check two statements, and a delete of the new design's sizes.
  assert.ok(third <= 7, `${third} statements`);
});

/**
 * The test app's database opened again, for counting one import's statements: the app's own counter also counts its
 * pollers' statements (the webhook dispatcher's each second, the job queue's), and once one landed inside the counted
 * window.
 */
function ownDatabase(): Db {
  return openDatabase({ databaseUrl: t.config.databaseUrl, dataDir: t.config.dataDir, checkpointEveryMs: 0 });
}

/** A statement as the body of a WITH, as it is (exports.repository.ts does the same for its statement). */
function asWithBody(statement: OperationNodeSource): Expression<Record<string, unknown>> {
  return {
    get expressionType() {
      return undefined;
    },
    toOperationNode: () => statement.toOperationNode(),
  };
}

/** A design service as the app builds one, on the test app's database; `newHash` offers the hashes. */
function oneStatementService(newHash?: () => string, on: Db = t.runtime.db) {
  const db = on.kysely;
  return createDesignService({
    db,
    dialect: on.dialect,
    access: createAccess({
      projects: createProjectRepository(db),
      brandKits: createBrandKitRepository(db),
      folders: createFolderRepository(db, t.runtime.db.dialect),
    }),
    // An export with changes answers a link to the thumbnail to come (its design/create event carries it).
    thumbnails: createThumbnails(t.runtime.blobs, {
      pendingLinks: { publicUrl: 'http://placard.test', keys: { jwt: new Uint8Array(32), links: Buffer.alloc(32) } },
    }),
    newHash,
  });
}

/** Runs the design's statements as the export service does, in one data-modifying WITH, with nothing of its own. */
async function runAtOnce(
  design: Parameters<NonNullable<ImportOptions['atOnce']>>[0],
  on: Db = t.runtime.db,
): Promise<void> {
  let creator = on.kysely as QueryCreator<Database>;
  for (const [name, statement] of design.statements) {
    creator = creator.with(name, () => asWithBody(statement)) as unknown as QueryCreator<Database>;
  }
  await creator.selectNoFrom(sql<number>`(select id from ${sql.table(design.idOf)})`.as('id')).execute();
}

test('one statement (PostgreSQL): a hash taken between its check and the statement starts the import again', {
  skip: !process.env.DATABASE_URL && 'the design is written in one statement on PostgreSQL only',
}, async () => {
  const actor = { userId: t.owner.userId, teamId: t.owner.teamId, roleId: OWNER, name: 'Owner', credentialId: 0 };
  const db = t.runtime.db.kysely;
  const offered = ['raceaaa', 'racebbb'];
  const service = oneStatementService(() => offered.shift() as string);
  const attempts: string[] = [];
  const raced = await service.importDesign(
    actor,
    { projectId, name: 'Raced', document: doc() },
    {
      thumbnail: 'later',
      atOnce: async (design) => {
        attempts.push(design.hash);
        // Another import takes the hash after it was checked, before the statement runs.
        if (attempts.length === 1) {
          await importDesign(
            t.runtime,
            actor,
            { projectId, name: 'Racer', document: doc() },
            { newHash: () => design.hash },
          );
        }
        await runAtOnce(design);
      },
    },
  );
  assert.deepEqual(attempts, ['raceaaa', 'racebbb'], 'the statement refused the taken hash; the import began again');
  assert.equal(raced.template.id, 'racebbb');
  const rows = await db
    .selectFrom('designs')
    .select(['hash', 'name'])
    .where('name', 'in', ['Raced', 'Racer'])
    .execute();
  assert.deepEqual(rows.map((r) => `${r.hash} ${r.name}`).sort(), ['raceaaa Racer', 'racebbb Raced']);
  assert.equal((await sizeHashesOf('racebbb')).length, 1, 'the design has its size');
  const events = await db
    .selectFrom('events_outbox')
    .select('payload')
    .where('action', '=', 'design/create')
    .where('payload', 'like', '%"name":"Raced"%')
    .execute();
  assert.equal(events.length, 1, 'one design/create event: the refused attempt left none');
});

test('one statement (PostgreSQL): a project the caller knew, deleted meanwhile, is a 404 and leaves nothing', {
  skip: !process.env.DATABASE_URL && 'the design is written in one statement on PostgreSQL only',
}, async () => {
  const actor = { userId: t.owner.userId, teamId: t.owner.teamId, roleId: OWNER, name: 'Owner', credentialId: 0 };
  const db = t.runtime.db.kysely;
  const made = await t.app.inject({
    method: 'POST',
    url: '/v1/projects',
    headers: t.owner.headers,
    payload: { name: 'Gone', brandKitId: kit },
  });
  const gone = made.json().response.project as { id: number };
  await db.deleteFrom('projects').where('id', '=', gone.id).execute();
  const service = oneStatementService();
  await assert.rejects(
    service.importDesign(
      actor,
      { projectId: gone.id, name: 'Orphan', document: doc() },
      {
        thumbnail: 'later',
        project: { id: gone.id },
        atOnce: runAtOnce,
      },
    ),
    (error: Error & { code?: string }) => error.code === 'NOT_FOUND' && /project \d+ was deleted/.test(error.message),
  );
  const left = await db.selectFrom('designs').select('id').where('name', '=', 'Orphan').execute();
  assert.deepEqual(left, []);
});

test('one statement (PostgreSQL): fresh hashes are not checked first; one in use as a size hash or a design hash is refused', {
  skip: !process.env.DATABASE_URL && 'the design is written in one statement on PostgreSQL only',
}, async () => {
  const actor = { userId: t.owner.userId, teamId: t.owner.teamId, roleId: OWNER, name: 'Owner', credentialId: 0 };
  const db = t.runtime.db.kysely;
  const holder = await importDesign(t.runtime, actor, { projectId, name: 'Holder', document: doc('holdsiz') });

  // No collision: the design, its size and its event in the one statement, and nothing before it.
  const own = ownDatabase();
  try {
    await oneStatementService(undefined, own).importDesign(
      actor,
      { projectId, name: 'Unchecked', document: doc() },
      { thumbnail: 'later', project: { id: projectId }, atOnce: (design) => runAtOnce(design, own) },
    );
    assert.equal(own.statements(), 1, 'the import is its one statement');
  } finally {
    await own.close();
  }

  // Another design's size hash offered as the new design's hash: the database refuses it, the import starts again.
  const offered = ['holdsiz', 'freshcc'];
  const attempts: string[] = [];
  const made = await oneStatementService(() => offered.shift() as string).importDesign(
    actor,
    { projectId, name: 'Across', document: doc() },
    {
      thumbnail: 'later',
      project: { id: projectId },
      atOnce: async (design) => {
        attempts.push(design.hash);
        await runAtOnce(design);
      },
    },
  );
  assert.deepEqual(attempts, ['holdsiz', 'freshcc']);
  assert.equal(made.template.id, 'freshcc');
  const refused = await db.selectFrom('designs').select('name').where('hash', '=', 'holdsiz').execute();
  assert.equal(refused.length, 0, 'the refused attempt left no design');

  // A size whose hash is a design's own: refused as a taken hash, naming its table.
  const across = await db.selectFrom('designs').select('id').where('hash', '=', 'freshcc').executeTakeFirstOrThrow();
  await assert.rejects(
    db.insertInto('design_sizes').values({ design_id: across.id, hash: holder.template.id, position: 1 }).execute(),
    (error: Error & { code?: string; table?: string }) => error.code === '23505' && error.table === 'design_sizes',
  );
});
