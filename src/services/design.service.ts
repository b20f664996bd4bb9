// Designs (the seed's templates, SPEC §5 and §11): import, list, rename, delete, read and replace the document, its
// sizes, editable elements and fonts, and moves between folders. Invariants kept here:
// - a design's `name` is its document's `name` (import takes the body's name; a new document or a rename sets both);
// - `revision` grows with every change of the stored document, so the export cache never serves stale content;
// - size hashes are unique across the service: a hash a document brings that another design already uses is replaced;
// - replacing the content first saves the previous one as an automatic version, in the same transaction;
// - what the caller cannot see is a 404 for every role; a visible design the role may not change is a 403.
import { randomInt } from 'node:crypto';
import type { Kysely, OperationNodeSource } from 'kysely';
import type { Actor } from '../domain/actor.js';
import { type DesignDocument, normaliseDocument, readDocument } from '../domain/design.schema.js';
import { type PageQuery, pageRequest } from '../domain/page.js';
import type { Permission } from '../domain/permissions.js';
import type { ChangeAttribute } from '../elements/element-kind.js';
import { kindOfElement, type LayerType } from '../elements/registry.js';
import { AppError } from '../errors.js';
import { eventStatement, recordEvent } from '../events/outbox.js';
import { type JobQueue, thumbnailJobId } from '../jobs/job-queue.js';
import { fontFamily as catalogueFamily } from '../render/text/fonts.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { Db, Dialect } from '../storage/db/database.js';
import { createBrandKitRepository } from '../storage/db/repositories/brand-kits.repository.js';
import {
  createDesignVersionRepository,
  type DesignVersionRow,
} from '../storage/db/repositories/design-versions.repository.js';
import {
  createDesignRepository,
  type DesignListRow,
  type DesignRepository,
  type DesignRow,
} from '../storage/db/repositories/designs.repository.js';
import { createFolderRepository, type FolderRow } from '../storage/db/repositories/folders.repository.js';
import { createProjectRepository, type ProjectRow } from '../storage/db/repositories/projects.repository.js';
import type { Database } from '../storage/db/schema.js';
import { type Access, createAccess, projectScope, requirePermission } from './access.js';
import { createThumbnails, type Thumbnails } from './thumbnail.js';

export interface DesignServiceDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  access: Pick<Access, 'requireProject' | 'requireFolder'>;
  thumbnails: Thumbnails;
  /**
   * When given, imports and content changes answer without drawing the thumbnail: they store none and enqueue a
   * `design.thumbnail` job (issue 14: a pathological document must not hold the answer for its render). Without it
   * (the CLI seeder) the thumbnail is drawn before answering.
   */
  queue?: Pick<JobQueue, 'enqueue'>;
  /** A new design's hash (7 characters of a-z0-9). Default: random; tests give taken ones to collide. */
  newHash?: () => string;
}

export interface ImportDesignInput {
  projectId: number;
  /** A folder of the project; the project root when absent. */
  folderId?: number;
  name: string;
  isTemplate?: boolean;
  /** Set by exports with changes (SPEC §6); imports through HTTP are never API-generated. */
  apiGenerated?: boolean;
  /** The design document as received; it is migrated, validated and normalised here. */
  document: unknown;
}

export interface ListDesignsQuery extends PageQuery {
  keyword?: string;
  exactSearch?: boolean;
  projectId?: number;
  folderId?: number;
  apiGenerated?: boolean;
  onlyTemplates?: boolean;
}

export interface ImportOptions {
  /** Runs inside the import's transaction after the design row is written, with the stored (normalised) document. */
  within?: (tx: Kysely<Database>, created: { row: DesignRow; document: DesignDocument }) => Promise<void>;
  /**
   * On PostgreSQL, for a design outside any folder: instead of a transaction running `within`, the design's inserts
   * (its row, its sizes, its design/create event) are handed to the caller not run, with the stored document, and the
   * caller runs them in one statement with its own (issue 21: an export with changes, accepted in one statement instead
   * of a transaction of eight). Named as WITH statements; `idOf` names the one that answers the design's id.
   */
  atOnce?: (design: {
    hash: string;
    document: DesignDocument;
    statements: ReadonlyArray<readonly [string, OperationNodeSource]>;
    idOf: string;
  }) => Promise<void>;
  /**
   * With `atOnce`: the project as the caller found it, visible to the actor who may write there (an export with
   * changes: its template's), not read again. The statement's foreign key refuses a project deleted meanwhile (404).
   */
  project?: { id: number };
  /**
   * 'now' draws the thumbnail before answering; 'later' leaves thumbUrl null for a background job the caller enqueues.
   * Default: a job enqueued here when the service has a queue, else 'now'.
   */
  thumbnail?: 'now' | 'later';
}

/** A design found by a size hash carries that hash; found by its own hash, null. */
export type FoundDesign = DesignRow & { size_hash: string | null };

const HASH_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const MAX_NAMES_LISTED = 50;

function randomHash(): string {
  let out = '';
  for (let i = 0; i < 7; i++) out += HASH_ALPHABET[randomInt(HASH_ALPHABET.length)];
  return out;
}

export function documentOf(row: Pick<DesignRow, 'document'>): DesignDocument {
  return JSON.parse(row.document) as DesignDocument;
}

function withoutHashes(doc: DesignDocument, drop: Set<string>): DesignDocument {
  return {
    ...doc,
    sizes: doc.sizes.map(({ hash, ...size }) => (hash && !drop.has(hash) ? { ...size, hash } : size)),
  };
}

/** The new design's own hash turned out to be in use: the import starts again with another (see importDesign). */
class DesignHashTaken extends Error {
  constructor() {
    super('a new design hash was taken on each of five attempts');
  }
}

/**
 * Normalises `doc` (see normaliseDocument) with size hashes that no other design uses and that differ from
 * `reserved` (the design's own hash). A hash the document brings is kept when it is free; one in use elsewhere is
 * replaced, as a copied document must not take over another design's sizes. Sizes without a hash inherit the hash of
 * the `existing` document's size of the same name and dimensions. With `reservedIsNew`, the design's own hash is
 * checked in the same statement as its sizes' (a new design: one statement for both), and DesignHashTaken is thrown
 * when it is in use.
 */
/** `doc` normalised, its sizes given fresh random hashes that differ from the design's own `reserved` hash. */
function freshSizeHashes(doc: DesignDocument, reserved: string): DesignDocument {
  for (;;) {
    const normalised = normaliseDocument(doc);
    if (!normalised.sizes.some((size) => size.hash === reserved)) return normalised;
  }
}

async function assignSizeHashes(
  designs: Pick<DesignRepository, 'takenHashes'>,
  doc: DesignDocument,
  options: { designId: number | null; reserved: string; reservedIsNew?: boolean; existing?: DesignDocument },
): Promise<DesignDocument> {
  let candidate = doc;
  let checkReserved = options.reservedIsNew ?? false;
  // A collision of fresh random hashes is about one in 10^10 per size: a few rounds always end it.
  for (let round = 0; round < 5; round++) {
    const normalised = normaliseDocument(candidate, options.existing);
    const hashes = normalised.sizes.map((size) => size.hash as string);
    const taken = await designs.takenHashes(checkReserved ? [options.reserved, ...hashes] : hashes, options.designId);
    if (checkReserved && taken.has(options.reserved)) throw new DesignHashTaken();
    checkReserved = false;
    if (hashes.includes(options.reserved)) taken.add(options.reserved);
    if (taken.size === 0) return normalised;
    candidate = withoutHashes(normalised, taken);
  }
  throw new Error('could not find free size hashes in 5 rounds');
}

/** The editable elements of a document, once per name: the first occurrence across sizes, slides and layers. */
export function editableElements(doc: DesignDocument) {
  const seen = new Set<string>();
  const out: Array<{
    name: string;
    layerType: LayerType;
    value: string | null;
    visible: boolean;
    slideNumber: number;
    gotoUrl: string | null;
    attributes: ChangeAttribute[];
  }> = [];
  for (const size of doc.sizes) {
    size.slides.forEach((slide, slideNumber) => {
      for (const element of slide.elements) {
        if (seen.has(element.name)) continue;
        seen.add(element.name);
        const kind = kindOfElement(element);
        out.push({
          name: element.name,
          layerType: element.type,
          value: kind.editableValue(element),
          visible: element.visible ?? true,
          slideNumber,
          gotoUrl: element.link ?? null,
          attributes: [...kind.acceptedChanges],
        });
      }
    });
  }
  return out;
}

function elementNames(doc: DesignDocument): string[] {
  const names = new Set(doc.sizes.flatMap((size) => size.slides.flatMap((s) => s.elements.map((e) => e.name))));
  return [...names].sort((a, b) => a.localeCompare(b));
}

/**
 * The font families the text and button elements of a document draw with (of `elementName` only when given), in order
 * of first appearance, each with the variants the catalogue has for it. A family outside the catalogue has none.
 */
export function designFonts(doc: DesignDocument, elementName?: string) {
  const families = new Map<string, { fontFamily: string; variants: string[] }>();
  let found = false;
  for (const size of doc.sizes) {
    for (const slide of size.slides) {
      for (const element of slide.elements) {
        if (elementName !== undefined && element.name !== elementName) continue;
        found = true;
        const font = kindOfElement(element).fontOf?.(element);
        if (!font) continue;
        const family = catalogueFamily(font.fontFamily);
        const key = (family?.fontFamily ?? font.fontFamily).toLowerCase();
        if (!families.has(key)) {
          families.set(key, {
            fontFamily: family?.fontFamily ?? font.fontFamily,
            variants: family ? family.variants : [],
          });
        }
      }
    }
  }
  return { found, fonts: [...families.values()] };
}

function unknownElement(hash: string, name: string, doc: DesignDocument): AppError {
  const names = elementNames(doc);
  const listed = names.slice(0, MAX_NAMES_LISTED).join(', ');
  const more = names.length > MAX_NAMES_LISTED ? ` and ${names.length - MAX_NAMES_LISTED} more` : '';
  return new AppError(
    'UNKNOWN_ELEMENT',
    `elementName (query): no size of design ${hash} has an element named ${JSON.stringify(name)}; ` +
      (names.length ? `valid names: ${listed}${more}` : 'the design has no elements'),
  );
}

/** The version as events carry it (the list shape needs user pictures, which events do not). */
export function versionEventOf(version: DesignVersionRow, actor: Actor) {
  return {
    id: version.id,
    versionName: version.version_name,
    sizeHash: version.size_hash,
    automatic: version.automatic === 1,
    createdAt: version.created_at,
    createdByUser: { id: actor.userId, name: actor.name },
  };
}

export function createDesignService({
  db,
  dialect,
  access,
  thumbnails,
  queue,
  newHash = randomHash,
}: DesignServiceDeps) {
  const designs = createDesignRepository(db, dialect);

  /** Has the thumbnail of this revision drawn in the background (after the commit: the queue may live elsewhere). */
  async function thumbnailLater(row: { id: number; revision: number }): Promise<void> {
    await queue?.enqueue(
      'design.thumbnail',
      { designId: row.id, revision: row.revision },
      { jobId: thumbnailJobId(row.id, row.revision) },
    );
  }

  /** The node as GET /v1/templates lists it; `thumbUrl` is a fresh link valid 12 hours. */
  async function nodeOf(
    row: Pick<DesignListRow, 'hash' | 'name' | 'is_template' | 'project_id' | 'api_generated' | 'thumb_key'>,
  ) {
    return {
      id: row.hash,
      name: row.name,
      isTemplate: row.is_template === 1,
      projectId: row.project_id,
      apiGenerated: row.api_generated === 1,
      thumbUrl: await thumbnails.designUrl(row.thumb_key, row.hash),
    };
  }

  function notFound(field: string, hash: string): AppError {
    return new AppError('NOT_FOUND', `${field}: design ${hash} does not exist or is not visible to the caller`);
  }

  /** The design if the actor sees it (else 404) and holds `permission` (else 403). `field` names it in errors. */
  async function requireDesign(actor: Actor, hash: string, permission: Permission, field = 'hash') {
    const design = await designs.findVisible(projectScope(actor), hash);
    if (!design) throw notFound(field, hash);
    requirePermission(actor, permission, `design ${hash}`);
    return design;
  }

  /** As requireDesign, found by its hash or by the hash of one of its sizes (design versions take either). */
  async function requireDesignOrSize(actor: Actor, hash: string, permission: Permission, field = 'hash') {
    const design = await designs.findVisibleByDesignOrSizeHash(projectScope(actor), hash);
    if (!design) {
      throw new AppError(
        'NOT_FOUND',
        `${field}: no design or size of a design with hash ${hash} exists or is visible to the caller`,
      );
    }
    requirePermission(actor, permission, `design ${design.hash}`);
    return design;
  }

  /**
   * Runs `fn` with the repositories on a transaction holding the folder tree of the project still, when a folder is
   * involved, so that a folder deleted meanwhile is a 404 and not a foreign key failure (as folders do).
   */
  async function inTransaction<T>(
    lock: { projectId: number; folder: FolderRow | null } | null,
    fn: (tx: Kysely<Database>) => Promise<T>,
  ): Promise<T> {
    return db.transaction().execute(async (tx) => {
      if (lock?.folder) {
        const tree = createFolderRepository(tx, dialect);
        await tree.lockTree(lock.projectId);
        if ((await tree.pathTo(lock.folder.id)).length === 0) {
          throw new AppError(
            'NOT_FOUND',
            `folderId: folder ${lock.folder.id} was deleted by another request meanwhile`,
          );
        }
      }
      return fn(tx);
    });
  }

  /** Stores a new thumbnail, runs `fn`, and removes the new thumbnail again when `fn` fails. */
  async function withThumbnail<T>(
    hash: string,
    doc: DesignDocument,
    fn: (key: string) => Promise<T>,
    owner?: { teamId: number; projectId: number },
  ): Promise<T> {
    const key = await thumbnails.make(hash, doc, owner);
    try {
      return await fn(key);
    } catch (error) {
      await thumbnails.discard([key]);
      throw error;
    }
  }

  /**
   * Imports a design. `options.within` runs in the same transaction once the row exists (an export with changes
   * creates its export there, so that both exist or neither); `options.thumbnail: 'later'` stores no thumbnail now
   * (the caller has it drawn in the background) and keeps the answer fast.
   */
  async function importDesign(actor: Actor, input: ImportDesignInput, options: ImportOptions = {}) {
    // Decided once here: createAs takes `atOnce` as given (PostgreSQL, no folder to lock), else the transaction.
    const atOnce = dialect === 'postgres' && input.folderId === undefined ? options.atOnce : undefined;
    const project: Pick<ProjectRow, 'id'> =
      atOnce && options.project?.id === input.projectId
        ? options.project
        : await access.requireProject(actor, input.projectId, 'content:write');
    let folder: FolderRow | null = null;
    if (input.folderId !== undefined) {
      folder = await access.requireFolder(actor, input.folderId, 'read', 'folderId');
      if (folder.project_id !== project.id) {
        throw new AppError(
          'UNPROCESSABLE',
          `folderId: folder ${folder.id} belongs to project ${folder.project_id}, not to project ${project.id}; ` +
            'a design goes into a folder of its own project',
        );
      }
    }
    const name = input.name.trim();
    const doc = { ...readDocument(input.document, { pointer: '/document' }), name };
    // The new hash is checked inside the transaction, with the sizes' hashes; taken (about one in 10^10), the
    // import starts again with another.
    for (let attempt = 1; ; attempt++) {
      try {
        return await createAs(newHash(), actor, input, { ...options, atOnce }, { project, folder, name, doc });
      } catch (error) {
        if (!(error instanceof DesignHashTaken) || attempt === 5) throw error;
      }
    }
  }

  async function createAs(
    hash: string,
    actor: Actor,
    input: ImportDesignInput,
    options: ImportOptions,
    checked: { project: Pick<ProjectRow, 'id'>; folder: FolderRow | null; name: string; doc: DesignDocument },
  ) {
    const { project, folder, name, doc } = checked;
    if (options.atOnce) {
      return { template: await createAtOnce(hash, actor, input, { project, name, doc }, options.atOnce) };
    }
    const insert = (thumbKey: string | null) =>
      inTransaction({ projectId: project.id, folder }, async (tx) => {
        const repo = createDesignRepository(tx, dialect);
        const stored = await assignSizeHashes(repo, doc, { designId: null, reserved: hash, reservedIsNew: true });
        const row = await repo.insert({
          hash,
          teamId: actor.teamId,
          projectId: project.id,
          folderId: folder?.id ?? null,
          name,
          isTemplate: input.isTemplate ?? false,
          apiGenerated: input.apiGenerated ?? false,
          document: JSON.stringify(stored),
          thumbKey,
          userId: actor.userId,
        });
        await repo.replaceSizes(
          row.id,
          stored.sizes.map((size) => size.hash as string),
          true,
        );
        const template = await nodeOf(row);
        await recordEvent(tx, { teamId: actor.teamId, action: 'design/create', data: { template } });
        await options.within?.(tx, { row, document: stored });
        return { template, row };
      });
    const mode = options.thumbnail ?? (queue ? 'queue' : 'now');
    if (mode === 'now')
      return {
        template: (await withThumbnail(hash, doc, insert, { teamId: actor.teamId, projectId: project.id })).template,
      };
    const { template, row } = await insert(null);
    if (mode === 'queue') await thumbnailLater(row);
    return { template };
  }

  /**
   * createAs by `atOnce` (ImportOptions). Hashes the document brings are checked first, in a statement of their own
   * (one in use elsewhere is replaced); a document whose sizes bring none (an export with changes) gets fresh random
   * ones, not checked: the unique indexes and migration 0027's triggers refuse a hash in use, which starts the import
   * again with another (about one in 10^10 per hash). Inside a transaction the check locked nothing either (absent rows
   * take no lock).
   */
  async function createAtOnce(
    hash: string,
    actor: Actor,
    input: ImportDesignInput,
    checked: { project: Pick<ProjectRow, 'id'>; name: string; doc: DesignDocument },
    atOnce: NonNullable<ImportOptions['atOnce']>,
  ) {
    const { project, name, doc } = checked;
    const stored = doc.sizes.some((size) => size.hash)
      ? await assignSizeHashes(designs, doc, { designId: null, reserved: hash, reservedIsNew: true })
      : freshSizeHashes(doc, hash);
    const fields = {
      hash,
      name,
      is_template: input.isTemplate ? 1 : 0,
      project_id: project.id,
      api_generated: input.apiGenerated ? 1 : 0,
      thumb_key: null,
    };
    const template = await nodeOf(fields);
    const inserts = designs.insertStatements(
      {
        hash,
        teamId: actor.teamId,
        projectId: project.id,
        folderId: null,
        name,
        isTemplate: input.isTemplate ?? false,
        apiGenerated: input.apiGenerated ?? false,
        document: JSON.stringify(stored),
        thumbKey: null,
        userId: actor.userId,
      },
      stored.sizes.map((size) => size.hash as string),
      'd',
    );
    const event = eventStatement(db, { teamId: actor.teamId, action: 'design/create', data: { template } });
    const statements: Array<readonly [string, OperationNodeSource]> = [['d', inserts.row]];
    if (inserts.sizes) statements.push(['s', inserts.sizes]);
    statements.push(['o', event.statement]);
    try {
      await atOnce({ hash, document: stored, statements, idOf: 'd' });
    } catch (error) {
      const { code, table, constraint } = error as { code?: string; table?: string; constraint?: string };
      // unique_violation: a design's or a size's hash taken since the check.
      if (code === '23505' && (table === 'designs' || table === 'design_sizes')) throw new DesignHashTaken();
      // foreign_key_violation: the project, taken as the caller knew it (ImportOptions.project), deleted meanwhile.
      if (code === '23503' && constraint === 'designs_project_id_fkey') {
        throw new AppError('NOT_FOUND', `projectId: project ${project.id} was deleted by another request meanwhile`);
      }
      throw error;
    }
    return template;
  }

  /**
   * Replaces the content of a design with `doc` (validated), after saving the current content as an automatic
   * version named `versionName`; bumps the revision and remakes the thumbnail. Document replacement and restores.
   */
  async function replaceContent(
    actor: Actor,
    design: DesignRow,
    doc: DesignDocument,
    versionName: string,
    expectedRevision?: number,
  ) {
    const change = (thumbKey: string | null) =>
      db.transaction().execute(async (tx) => {
        const repo = createDesignRepository(tx, dialect);
        // Re-read under the row lock: the snapshot must be the content this change replaces.
        const current = await repo.lock(design.id);
        if (!current) throw notFound('hash', design.hash);
        // Checked under the lock, so two saves from the same revision cannot both pass.
        if (expectedRevision !== undefined && current.revision !== expectedRevision) {
          throw new AppError(
            'STALE_REVISION',
            `the design was saved by someone else since revision ${expectedRevision} (it is now at revision ${current.revision}); reload it, or save with If-Match: "${current.revision}" to overwrite`,
            { headers: { ETag: `"${current.revision}"` } },
          );
        }
        const currentDoc = documentOf(current);
        const version = await createDesignVersionRepository(tx).insert({
          designId: current.id,
          name: versionName,
          document: current.document,
          sizeHash: currentDoc.sizes[0].hash as string,
          automatic: true,
          userId: actor.userId,
        });
        const stored = await assignSizeHashes(repo, doc, {
          designId: current.id,
          reserved: current.hash,
          existing: currentDoc,
        });
        const row = await repo.update(
          current.id,
          { document: JSON.stringify(stored), name: stored.name, revision: current.revision + 1, thumb_key: thumbKey },
          actor.userId,
        );
        await repo.replaceSizes(
          row.id,
          stored.sizes.map((size) => size.hash as string),
        );
        const template = await nodeOf(row);
        await recordEvent(tx, {
          teamId: actor.teamId,
          action: 'designVersion/create',
          data: { template, version: versionEventOf(version, actor) },
        });
        await recordEvent(tx, { teamId: actor.teamId, action: 'design/update', data: { template } });
        return {
          result: { template, document: stored, revision: row.revision },
          previousThumb: current.thumb_key,
          row,
        };
      });
    // With a queue the new revision has no thumbnail until its job draws it (thumbUrl null meanwhile): the answer
    // does not wait for a render.
    const { result, previousThumb, row } = queue
      ? await change(null)
      : await withThumbnail(design.hash, doc, change, {
          teamId: design.team_id,
          projectId: design.project_id,
        });
    await thumbnails.discard([previousThumb]);
    if (queue) await thumbnailLater(row);
    return result;
  }

  return {
    nodeOf,
    requireDesign,
    requireDesignOrSize,
    replaceContent,
    importDesign,

    async list(actor: Actor, query: ListDesignsQuery) {
      const keyword = query.keyword?.trim() || undefined;
      const filters = {
        keyword,
        exactSearch: query.exactSearch === true,
        projectId: query.projectId,
        folderId: query.folderId,
        apiGenerated: query.apiGenerated === true,
        onlyTemplates: query.onlyTemplates === true,
      };
      const page = pageRequest(query, filters, { orderBy: 'UPDATED_AT', direction: 'DESC' });
      const result = await designs.list(projectScope(actor), filters, page);
      return { ...result, nodes: await Promise.all(result.nodes.map(nodeOf)) };
    },

    /** Renames (the document's name too, so the revision grows) and/or marks the design as a team template. */
    async update(actor: Actor, input: { hash: string; name?: string; isTemplate?: boolean }) {
      const design = await requireDesign(actor, input.hash, 'content:write');
      const template = await db.transaction().execute(async (tx) => {
        const repo = createDesignRepository(tx, dialect);
        const current = await repo.lock(design.id);
        if (!current) throw notFound('hash', design.hash);
        const changes: Parameters<DesignRepository['update']>[1] = {};
        const name = input.name?.trim();
        if (name !== undefined && name !== current.name) {
          changes.name = name;
          changes.document = JSON.stringify({ ...documentOf(current), name });
          changes.revision = current.revision + 1;
        }
        if (input.isTemplate !== undefined && (input.isTemplate ? 1 : 0) !== current.is_template) {
          changes.is_template = input.isTemplate ? 1 : 0;
        }
        // Nothing to change is a success that changes nothing, and reports nothing.
        if (Object.keys(changes).length === 0) return nodeOf(current);
        const node = await nodeOf(await repo.update(current.id, changes, actor.userId));
        await recordEvent(tx, { teamId: actor.teamId, action: 'design/update', data: { template: node } });
        return node;
      });
      return { template };
    },

    async delete(actor: Actor, hash: string): Promise<void> {
      const design = await requireDesign(actor, hash, 'content:write');
      await db.transaction().execute(async (tx) => {
        await createDesignRepository(tx, dialect).delete(design.id);
        const template = { ...(await nodeOf(design)), thumbUrl: null };
        await recordEvent(tx, { teamId: actor.teamId, action: 'design/delete', data: { template } });
      });
      await thumbnails.discard([design.thumb_key]);
    },

    async document(actor: Actor, hash: string): Promise<DesignDocument> {
      return documentOf(await requireDesign(actor, hash, 'read'));
    },

    /** The document with its revision (the ETag of GET/PUT …/document). */
    async revisionedDocument(actor: Actor, hash: string): Promise<{ document: DesignDocument; revision: number }> {
      const row = await requireDesign(actor, hash, 'read');
      return { document: documentOf(row), revision: row.revision };
    },

    /** `expectedRevision` (from If-Match): the save fails with STALE_REVISION unless the design is still at it. */
    async replaceDocument(actor: Actor, hash: string, raw: unknown, expectedRevision?: number) {
      const design = await requireDesign(actor, hash, 'content:write');
      const doc = readDocument(raw, { pointer: '/document' });
      return replaceContent(actor, design, doc, 'Before the document was replaced', expectedRevision);
    },

    async sizes(actor: Actor, hash: string) {
      const doc = documentOf(await requireDesign(actor, hash, 'read', 'templateHash'));
      return doc.sizes.map((size) => ({
        hash: size.hash as string,
        name: size.name,
        kind: size.kind ?? 'custom_design',
        width: size.width,
        height: size.height,
        measureUnit: size.measureUnit ?? 'px',
      }));
    },

    async elements(actor: Actor, hash: string) {
      return editableElements(documentOf(await requireDesign(actor, hash, 'read')));
    },

    async fontVariants(actor: Actor, hash: string, elementName?: string) {
      const doc = documentOf(await requireDesign(actor, hash, 'read', 'templateHash'));
      const { found, fonts } = designFonts(doc, elementName);
      if (elementName !== undefined && !found) throw unknownElement(hash, elementName, doc);
      return fonts;
    },

    /** Moves a design to a folder of its project; `folderId` -1 moves it to the project root. */
    async moveToFolder(actor: Actor, input: { designHash: string; folderId: number }): Promise<void> {
      const design = await requireDesign(actor, input.designHash, 'content:write', 'designHash');
      let folder: FolderRow | null = null;
      if (input.folderId !== -1) {
        folder = await access.requireFolder(actor, input.folderId, 'read', 'folderId');
        if (folder.project_id !== design.project_id) {
          throw new AppError(
            'INVALID_MOVE',
            `folderId: folder ${folder.id} belongs to project ${folder.project_id}, but design ${design.hash} ` +
              `is in project ${design.project_id}; a design moves only between folders of its own project`,
          );
        }
      }
      await inTransaction({ projectId: design.project_id, folder }, async (tx) => {
        const repo = createDesignRepository(tx, dialect);
        if (!(await repo.lock(design.id))) throw notFound('designHash', design.hash);
        await repo.update(design.id, { folder_id: folder?.id ?? null }, actor.userId);
      });
    },
  };
}

export type DesignService = ReturnType<typeof createDesignService>;

/**
 * Imports a design as `actor` without HTTP (the demo seeder, scripts): the same validation, visibility, thumbnail and
 * event as POST /v1/templates/import. Answers `{ template }`, the node as listed.
 */
export async function importDesign(
  runtime: { db: Db; blobs: BlobStore },
  actor: Actor,
  input: ImportDesignInput,
  options: Pick<DesignServiceDeps, 'newHash'> = {},
): Promise<{ template: Awaited<ReturnType<DesignService['importDesign']>>['template'] }> {
  const { kysely, dialect } = runtime.db;
  const access = createAccess({
    projects: createProjectRepository(kysely),
    brandKits: createBrandKitRepository(kysely),
    folders: createFolderRepository(kysely, dialect),
  });
  const thumbnails = createThumbnails(runtime.blobs);
  const service = createDesignService({ db: kysely, dialect, access, thumbnails, newHash: options.newHash });
  return service.importDesign(actor, input);
}
