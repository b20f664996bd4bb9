// Brand fonts (issue 17): upload (public links through the guarded fetcher, or multipart files), list and delete the
// faces of a brand kit; the team's families for the font lists and the FONTFAMILY/FONTVARIANT checks; and the
// preparation of a document for rendering (team families under internal names, files cached on this machine).
// Fonts are small, so an upload answers once every file is parsed and stored: one entry per face, and a file that
// failed carries its `error` while the others are still stored. A failed file stores nothing.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Actor } from '../domain/actor.js';
import { type PageQuery, pageRequest } from '../domain/page.js';
import type { FontLookup } from '../elements/element-kind.js';
import { AppError } from '../errors.js';
import { recordEvent } from '../events/outbox.js';
import type { FontFetcher } from '../render/media/font-fetch.js';
import {
  FontFileError,
  type FontFileFormat,
  type ParsedFace,
  type ParsedFontFile,
} from '../render/text/brand-font-file.js';
import { type BrandFamily, type BrandFontPreparer, brandFamilyName } from '../render/text/brand-fonts.js';
import { fontFamily as catalogueFamily, catalogueFonts } from '../render/text/fonts.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import { invalidate, TopicCache } from '../storage/db/invalidation.js';
import {
  type BrandFontRepository,
  type BrandFontRow,
  createBrandFontRepository,
} from '../storage/db/repositories/brand-fonts.repository.js';
import type { Database } from '../storage/db/schema.js';
import type { Access } from './access.js';

/** At most this many sources or files per upload request. */
export const MAX_FONTS_PER_UPLOAD = 20;

export interface FontView {
  id: number;
  brandkitId: number;
  family: string;
  variant: string;
  style: 'normal' | 'italic';
  weight: number;
  format: FontFileFormat;
  glyphCount: number;
  fileName: string;
  embeddable: boolean;
  postscriptName: string | null;
  variation: Record<string, number> | null;
  checksum: string;
  size: number;
  createdAt: string;
  createdBy: number;
}

/** One entry of an upload's answer: a stored face, or a source that failed. */
export type UploadEntry =
  | (FontView & { source: string; error?: undefined })
  | { source: string; fileName: string; error: string; code: string };

export function fontOf(row: BrandFontRow): FontView {
  return {
    id: row.id,
    brandkitId: row.brand_kit_id,
    family: row.family,
    variant: row.variant,
    style: row.style as FontView['style'],
    weight: row.weight,
    format: row.format as FontFileFormat,
    glyphCount: row.glyph_count,
    fileName: row.file_name,
    embeddable: row.embeddable === 1,
    postscriptName: row.postscript_name,
    variation: row.variation ? (JSON.parse(row.variation) as Record<string, number>) : null,
    checksum: row.checksum,
    size: row.size,
    createdAt: row.created_at,
    createdBy: row.created_by,
  };
}

export interface FontServiceDeps {
  db: Kysely<Database>;
  access: Pick<Access, 'requireBrandKit'>;
  blobs: Pick<BlobStore, 'put' | 'get' | 'delete'>;
  fetcher: FontFetcher;
  /**
   * Reads an uploaded file (brand-font-file.ts readFontFile): on a render thread in the app (RenderPool.readFont),
   * because parsing, checking and instancing a font is CPU work that must not hold the event loop. Rejects with
   * FontFileError for a file that is no usable font.
   */
  readFont: (bytes: Buffer, fileName: string, teamId: number) => Promise<ParsedFontFile>;
  /** Where this machine keeps the font files it renders with. Default: <tmpdir>/placard-fonts. */
  cacheDir?: string;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The file name of a link's last path segment, or `font`. */
function fileNameOf(source: string): string {
  try {
    const last = decodeURIComponent(new URL(source).pathname.split('/').filter(Boolean).at(-1) ?? '');
    return last.replace(/[\p{Cc}\p{Cf}/\\:*?"<>|]/gu, '_').slice(0, 200) || 'font';
  } catch {
    return 'font';
  }
}

/** The family and variant used by every text-bearing element of a document (fontFamily, fontVariant). */
function* styledElements(document: unknown): Generator<{ name?: string; fontFamily?: string; fontVariant?: string }> {
  const sizes = (document as { sizes?: Array<{ slides?: Array<{ elements?: unknown[] }> }> })?.sizes ?? [];
  for (const size of sizes) {
    for (const slide of size.slides ?? []) {
      for (const element of slide.elements ?? []) {
        const styled = element as { fontFamily?: unknown };
        if (typeof styled.fontFamily === 'string') yield element as { fontFamily: string };
      }
    }
  }
}

export function createFontService(deps: FontServiceDeps) {
  const { db, access, blobs, fetcher } = deps;
  const repo: BrandFontRepository = createBrandFontRepository(db);
  // The faces a render needs, read for every file and changed by an upload or a delete: kept per process until the
  // team's fonts change (storage/db/invalidation.ts; issue 21: a statement per file).
  const usedFaces = new TopicCache<string, BrandFontRow[]>('fonts', { max: 10_000, ttlMs: 10 * 60_000 });
  const cacheDir = deps.cacheDir ?? path.join(os.tmpdir(), 'placard-fonts');

  /** Stores the faces of one file in a brand kit; nothing is stored when any face cannot be. */
  async function storeFile(
    actor: Actor,
    brandKitId: number,
    bytes: Buffer,
    fileName: string,
    src: string | null,
  ): Promise<FontView[]> {
    let faces: ParsedFace[];
    let format: string;
    try {
      ({ faces, format } = await deps.readFont(bytes, fileName, actor.teamId));
    } catch (error) {
      if (error instanceof FontFileError) throw new AppError('FONT_REJECTED', `${fileName} ${error.message}`);
      throw error;
    }
    for (const face of faces) {
      const existing = await repo.findFace(brandKitId, face.family, face.variant);
      if (existing) {
        throw new AppError(
          'FONT_REJECTED',
          `${fileName}: brand kit ${brandKitId} already has ${face.family} ${face.variant} (fontId ${existing.id}); delete it first to replace it`,
        );
      }
    }
    // Files first, rows after: a file without a row is only wasted space, a row without its file a broken font.
    const keys = new Map<Buffer, { key: string; checksum: string }>();
    for (const face of faces) {
      if (keys.has(face.bytes)) continue;
      const checksum = sha256(face.bytes);
      const key = `fonts/${actor.teamId}/${checksum}.${face.storedFormat}`;
      await blobs.put(key, face.bytes, `font/${face.storedFormat === 'otf' ? 'otf' : face.storedFormat}`);
      keys.set(face.bytes, { key, checksum });
    }
    const rows = await db.transaction().execute(async (tx) => {
      const txRepo = createBrandFontRepository(tx);
      const inserted: BrandFontRow[] = [];
      for (const face of faces) {
        const stored = keys.get(face.bytes)!;
        inserted.push(
          await txRepo.insert({
            team_id: actor.teamId,
            brand_kit_id: brandKitId,
            family: face.family,
            variant: face.variant,
            style: face.style,
            weight: face.weight,
            format,
            glyph_count: face.glyphCount,
            file_name: fileName,
            postscript_name: face.postscriptName,
            embeddable: face.embeddable ? 1 : 0,
            fs_type: face.fsType,
            variation: face.variation ? JSON.stringify(face.variation) : null,
            blob_key: stored.key,
            checksum: stored.checksum,
            size: face.bytes.length,
            src,
            created_by: actor.userId,
          }),
        );
      }
      for (const row of inserted) {
        await recordEvent(tx, {
          teamId: actor.teamId,
          action: 'brandkit/fontAdded',
          data: { brandkitId: brandKitId, font: fontOf(row) },
        });
      }
      return inserted;
    });
    invalidate('fonts');
    return rows.map(fontOf);
  }

  async function settle(
    actor: Actor,
    brandKitId: number,
    source: string,
    fileName: string,
    load: () => Promise<Buffer>,
    /** The link fetched; null for a multipart file. */
    src: string | null,
  ): Promise<UploadEntry[]> {
    try {
      const views = await storeFile(actor, brandKitId, await load(), fileName, src);
      return views.map((view) => ({ ...view, source }));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return [{ source, fileName, error: error.message, code: error.code }];
    }
  }

  /** Every face of the team grouped by family (lower-cased), the project's kit winning per variant. */
  async function teamFaces(teamId: number, projectKitId: number | null) {
    // Kept as the faces a render uses are (issue 21: every export with changes checks its FONTFAMILY changes against
    // these, a statement per export though teams rarely upload); the key cannot be one of usedFaces' `team:families`.
    return facesByFamily(await usedFaces.get(String(teamId), () => repo.ofTeam(teamId)), projectKitId);
  }

  function facesByFamily(rows: BrandFontRow[], projectKitId: number | null) {
    const byFamily = new Map<string, Map<string, BrandFontRow>>();
    for (const row of rows) {
      const variants = byFamily.get(row.family_key) ?? new Map<string, BrandFontRow>();
      const current = variants.get(row.variant);
      // Oldest first; the project's kit replaces whatever another kit holds for the same variant.
      if (!current || (row.brand_kit_id === projectKitId && current.brand_kit_id !== projectKitId)) {
        variants.set(row.variant, row);
      }
      byFamily.set(row.family_key, variants);
    }
    return byFamily;
  }

  /** A local copy of a stored font file, fetched from the BlobStore on first use on this machine. */
  async function localFile(row: BrandFontRow): Promise<string> {
    const file = path.join(cacheDir, path.basename(row.blob_key));
    if (fs.existsSync(file)) return file;
    const blob = await blobs.get(row.blob_key);
    if (!blob) throw new AppError('UNPROCESSABLE', `the file of brand font ${row.id} (${row.file_name}) is missing`);
    const chunks: Buffer[] = [];
    for await (const chunk of blob.body) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    if (sha256(bytes) !== row.checksum) {
      throw new AppError('UNPROCESSABLE', `the stored file of brand font ${row.id} does not match its checksum`);
    }
    await fs.promises.mkdir(cacheDir, { recursive: true });
    // Written aside and renamed: a render thread never registers half a file.
    const partial = `${file}.${process.pid}.${Date.now()}.part`;
    await fs.promises.writeFile(partial, bytes);
    await fs.promises.rename(partial, file);
    return file;
  }

  const preparer: BrandFontPreparer = {
    async prepare(teamId, projectId, document) {
      const used = new Set<string>();
      for (const element of styledElements(document)) used.add(element.fontFamily!.trim().toLowerCase());
      if (used.size === 0) return { document, brandFamilies: [], warnings: [] };
      const wanted = [...used].sort();
      const rows = await usedFaces.get(`${teamId}:${wanted.join('\n')}`, () => repo.ofTeam(teamId, wanted));
      // The project's kit only decides between kits holding the same face (issue 21: a statement per file saved).
      const project =
        new Set(rows.map((row) => row.brand_kit_id)).size > 1
          ? await db.selectFrom('projects').select('brand_kit_id').where('id', '=', projectId).executeTakeFirst()
          : undefined;
      const faces = facesByFamily(rows, project?.brand_kit_id ?? null);
      const families = new Map<string, BrandFamily>();
      for (const [key, variants] of faces) {
        const rows = [...variants.values()];
        families.set(key, {
          name: brandFamilyName(
            teamId,
            key,
            rows.map((row) => row.id),
          ),
          displayName: rows[0]!.family,
          faces: await Promise.all(
            rows.map(async (row) => ({
              fontId: row.id,
              variant: row.variant,
              path: await localFile(row),
              embeddable: row.embeddable === 1,
              fileName: row.file_name,
            })),
          ),
        });
      }
      const warnings = new Set<string>();
      // Copied only when a family is renamed: the bundled families' documents go to the render threads as they are.
      const rewritten = families.size > 0 ? structuredClone(document) : document;
      for (const element of styledElements(rewritten)) {
        const family = families.get(element.fontFamily!.trim().toLowerCase());
        if (family) element.fontFamily = family.name;
        else if (!catalogueFamily(element.fontFamily!)) {
          warnings.add(
            `element '${element.name ?? ''}': the font family '${element.fontFamily}' is not available to this team (a brand font that was deleted?); its text is drawn in the default font`,
          );
        }
      }
      return { document: rewritten, brandFamilies: [...families.values()], warnings: [...warnings] };
    },
  };

  return {
    preparer,

    async uploadFromUrls(actor: Actor, input: { brandkitId: number; sources: string[] }) {
      const kit = await access.requireBrandKit(actor, input.brandkitId, 'content:write');
      const fonts: UploadEntry[] = [];
      // One at a time: fonts are small, and a kit's uniqueness check must see the faces stored just before.
      for (const source of input.sources) {
        fonts.push(
          ...(await settle(
            actor,
            kit.id,
            source,
            fileNameOf(source),
            async () => (await fetcher.fetch(source)).bytes,
            source,
          )),
        );
      }
      return { fonts };
    },

    async uploadFiles(
      actor: Actor,
      brandkitId: number,
      files: AsyncIterable<{ fileName: string; read: () => Promise<Buffer> }>,
    ) {
      const kit = await access.requireBrandKit(actor, brandkitId, 'content:write', 'id');
      const fonts: UploadEntry[] = [];
      let count = 0;
      for await (const file of files) {
        count += 1;
        if (count > MAX_FONTS_PER_UPLOAD) {
          throw new AppError('VALIDATION_FAILED', `file: at most ${MAX_FONTS_PER_UPLOAD} files per request`);
        }
        fonts.push(...(await settle(actor, kit.id, file.fileName, file.fileName, file.read, null)));
      }
      if (count === 0) {
        throw new AppError('VALIDATION_FAILED', 'file: the form needs at least one `file` part holding a font file');
      }
      return { fonts };
    },

    async list(actor: Actor, brandkitId: number, query: PageQuery) {
      const kit = await access.requireBrandKit(actor, brandkitId, 'read', 'id');
      const page = pageRequest(query, { brandkitId: kit.id }, { orderBy: 'CREATED_AT', direction: 'DESC' });
      const result = await repo.list(kit.id, page);
      return { ...result, nodes: result.nodes.map(fontOf) };
    },

    async delete(actor: Actor, input: { brandkitId: number; fontId: number }) {
      const kit = await access.requireBrandKit(actor, input.brandkitId, 'content:write');
      const row = await repo.findInTeam(actor.teamId, input.fontId);
      if (!row || row.brand_kit_id !== kit.id) {
        throw new AppError('NOT_FOUND', `fontId: brand kit ${kit.id} has no font ${input.fontId}`);
      }
      await db.transaction().execute(async (tx) => {
        await createBrandFontRepository(tx).delete(row.id);
        await recordEvent(tx, {
          teamId: actor.teamId,
          action: 'brandkit/fontRemoved',
          data: { brandkitId: kit.id, font: fontOf(row) },
        });
      });
      invalidate('fonts');
      // After the commit, and only when no other face (a variable font's other instances) still uses the file.
      if (!(await repo.blobInUse(row.blob_key))) await blobs.delete(row.blob_key);
    },

    /** FONTFAMILY and FONTVARIANT checks for a team: its uploaded families first, then the catalogue. */
    async lookup(teamId: number): Promise<FontLookup> {
      const team = new Map((await this.families(teamId)).map((family) => [family.fontFamily.toLowerCase(), family]));
      return {
        family(name) {
          const found = team.get(name.trim().toLowerCase());
          return found ? { fontFamily: found.fontFamily, variants: found.variants } : catalogueFonts.family(name);
        },
      };
    },

    /** The team's uploaded families with their variants, for GET /v1/fonts and the FONTFAMILY/FONTVARIANT checks. */
    async families(teamId: number): Promise<Array<{ fontFamily: string; variants: string[]; fontIds: number[] }>> {
      const faces = await teamFaces(teamId, null);
      return [...faces.values()].map((variants) => {
        const rows = [...variants.values()];
        return {
          fontFamily: rows[0]!.family,
          variants: rows
            .map((row) => row.variant)
            .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10) || a.length - b.length),
          fontIds: rows.map((row) => row.id),
        };
      });
    },
  };
}

export type FontService = ReturnType<typeof createFontService>;
