// Share links (SPEC §7): a stable public link per design, and previews of a template with element changes that are
// stored as documents of their own (never as designs). Both open GET /share/{token}, which plays the HTML5 package of
// the document (rendered on the render threads, kept in a small LRU). Changes are validated by applyChanges, as
// exports validate them; creating a link records shareLink/create in the outbox.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Actor } from '../domain/actor.js';
import { applyChanges, type ElementChangesInput, type GeneralChangesInput } from '../domain/changes.js';
import type { DesignDocument } from '../domain/design.schema.js';
import { AppError } from '../errors.js';
import { recordEvent } from '../events/outbox.js';
import { unzipPackage } from '../formats/html5/unzip.js';
import { catalogueFonts } from '../render/text/fonts.js';
import { createShareLinkRepository, type ShareLinkRow } from '../storage/db/repositories/share-links.repository.js';
import type { Database } from '../storage/db/schema.js';
import { type DesignService, documentOf } from './design.service.js';
import type { Thread } from './share-comment.service.js';
import { sharePage } from './share-page.js';

export interface ShareLinkServiceDeps {
  db: Kysely<Database>;
  /** The review threads of a design (share-comment.service.ts). Default: none. */
  threads?: (designHash: string) => Promise<Thread[]>;
  designs: Pick<DesignService, 'requireDesign'>;
  /** config.publicUrl: links are absolute. */
  publicUrl: string;
  /** The HTML5 package (zip) of one size of a document, made on the render threads. */
  renderPackage(document: DesignDocument, sizeIndex: number): Promise<Uint8Array>;
}

export interface GenerateShareLinkInput {
  templateHash: string;
  elementsChanges: unknown[];
  generalChanges?: Record<string, unknown>;
}

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  json: 'application/json',
  svg: 'image/svg+xml',
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  woff2: 'font/woff2',
  woff: 'font/woff',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

const notFound = () => new AppError('NOT_FOUND', 'no such share link');

export function createShareLinkService(deps: ShareLinkServiceDeps) {
  const repo = createShareLinkRepository(deps.db);
  const packages = new LRUCache<string, Promise<Map<string, Buffer>>>({ max: 32 });
  const urlOf = (token: string) => `${deps.publicUrl}/share/${token}`;

  async function create(actor: Actor, row: Omit<ShareLinkRow, 'token' | 'team_id' | 'created_by' | 'created_at'>) {
    const token = randomBytes(16).toString('base64url'); // 128 bits (SPEC §7)
    await deps.db.transaction().execute(async (tx) => {
      await createShareLinkRepository(tx).insert({
        ...row,
        token,
        team_id: actor.teamId,
        created_by: actor.userId,
        created_at: new Date().toISOString(),
      });
      await recordEvent(tx, {
        teamId: actor.teamId,
        action: 'shareLink/create',
        data: {
          shareLink: { shareLinkUrl: urlOf(token), templateHash: row.design_hash, previewId: row.preview_id },
        },
      });
    });
    return token;
  }

  /** The document a link plays now: the preview's own, or the design's current one. */
  async function documentFor(token: string): Promise<{ document: DesignDocument; version: string }> {
    if (!/^[A-Za-z0-9_-]{22}$/.test(token)) throw notFound();
    const link = await repo.findByToken(token);
    if (!link) throw notFound();
    if (link.document) return { document: JSON.parse(link.document) as DesignDocument, version: 'preview' };
    const design = await repo.designOf(link.design_hash);
    if (!design) throw new AppError('NOT_FOUND', 'the design of this share link was deleted');
    return { document: documentOf(design), version: `r${design.revision}` };
  }

  function sizeOf(document: DesignDocument, size: number | undefined): number {
    const index = size ?? 0;
    if (!Number.isInteger(index) || index < 0 || index >= document.sizes.length) {
      throw new AppError('NOT_FOUND', `size ${index} does not exist; the design has ${document.sizes.length}`);
    }
    return index;
  }

  return {
    /** GET /v1/shareLink/{templateHash}: made on the first call, the same link afterwards. */
    async linkFor(actor: Actor, templateHash: string) {
      const design = await deps.designs.requireDesign(actor, templateHash, 'shareLink:create', 'templateHash');
      const existing = await repo.findStable(design.hash);
      const token =
        existing?.token ?? (await create(actor, { design_hash: design.hash, preview_id: null, document: null }));
      const threads = (await deps.threads?.(design.hash)) ?? [];
      return { shareLinkUrl: urlOf(token), comments: { threads } };
    },

    /** POST /v1/shareLink/generate: validates the changes as an export does and stores the result as a preview. */
    async generate(actor: Actor, body: GenerateShareLinkInput) {
      const template = await deps.designs.requireDesign(actor, body.templateHash, 'shareLink:create', 'templateHash');
      const changed = applyChanges(
        documentOf(template),
        body.elementsChanges as ElementChangesInput[],
        body.generalChanges as GeneralChangesInput | undefined,
        catalogueFonts,
      );
      const previewId = randomUUID();
      const token = await create(actor, {
        design_hash: template.hash,
        preview_id: previewId,
        document: JSON.stringify(changed),
      });
      const previewUrl = urlOf(token);
      return { response: { shareLinkUrl: previewUrl, previewUrl, previewId }, previewUrl, previewId };
    },

    /** The team, design and current document of a link (share-page comments). */
    async linkOf(token: string) {
      const { document } = await documentFor(token);
      const link = (await repo.findByToken(token))!;
      return { teamId: link.team_id, designHash: link.design_hash, document };
    },

    /** GET /share/{token}: the preview page. */
    async page(token: string, size?: number): Promise<string> {
      const { document } = await documentFor(token);
      return sharePage({
        title: document.name ?? 'Preview',
        token,
        sizes: document.sizes.map((s) => ({
          hash: s.hash ?? '',
          name: s.name ?? `${s.width}x${s.height}`,
          width: s.width,
          height: s.height,
        })),
        current: sizeOf(document, size),
      });
    },

    /** GET /share/{token}/{size}/{file}: a file of the size's HTML5 package. */
    async file(token: string, size: number, name: string): Promise<{ body: Buffer; contentType: string }> {
      const { document, version } = await documentFor(token);
      const index = sizeOf(document, size);
      const key = `${token}:${version}:${index}`;
      let files = packages.get(key);
      if (!files) {
        files = deps.renderPackage(document, index).then(unzipPackage);
        packages.set(key, files);
        files.catch(() => packages.delete(key));
      }
      const body = (await files).get(name);
      if (!body) throw new AppError('NOT_FOUND', `the package has no file ${name}`);
      return { body, contentType: CONTENT_TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream' };
    },
  };
}

export type ShareLinkService = ReturnType<typeof createShareLinkService>;
