// Team brand fonts on a render thread (issue 17). Skia's font collection is process-wide, so a team's family is never
// registered under the name people gave it: the export processor rewrites each text element's fontFamily to an
// internal name unique to the team and the set of faces (brandFamilyName), and the render job carries those families
// with a local path per face. A thread adds them to its font catalogue (fonts.ts) on first sight and the font
// registry registers each face once under its own alias, so two teams' "Acme Sans" never replace each other.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { AppError } from '../../errors.js';
import { fontFileCoverage } from './brand-font-file.js';
import { addThreadFamily, hasThreadFamily } from './fonts.js';

/** One face of a brand family as a render job carries it (structured-clone safe). */
export interface BrandFace {
  /** The seed's typography fontId. */
  fontId: number;
  variant: string;
  /** A local file (the processor's cache of the BlobStore), registered with Skia as is. */
  path: string;
  /** False when OS/2 fsType forbids embedding: raster only. */
  embeddable: boolean;
  fileName: string;
}

export interface BrandFamily {
  /** The internal family name the document uses (brandFamilyName). */
  name: string;
  /** The family as the team knows it, for messages. */
  displayName: string;
  faces: BrandFace[];
}

/** What the export processor does before it hands a document to a render thread. */
export interface BrandFontPreparer {
  prepare(
    teamId: number,
    projectId: number,
    document: unknown,
  ): Promise<{ document: unknown; brandFamilies: BrandFamily[]; warnings: string[] }>;
}

/**
 * The internal name of a team's family: unique per team and per set of faces, so a face added or removed gives a
 * new name (a thread never keeps drawing a stale set). Only letters and digits: the registry's aliases are
 * `name|variant|subset` and the HTML5 packager splits them on `|`.
 */
export function brandFamilyName(teamId: number, family: string, faceIds: number[]): string {
  const digest = createHash('sha256')
    .update(`${teamId}\u0000${family.toLowerCase()}\u0000${[...faceIds].sort((a, b) => a - b).join(',')}`)
    .digest('hex')
    .slice(0, 16);
  return `PlacardBrand${digest}`;
}

/** Makes the job's brand families known to this thread's font catalogue (once each; files are registered lazily). */
export function useBrandFamilies(families: readonly BrandFamily[] | undefined): void {
  for (const family of families ?? []) {
    if (hasThreadFamily(family.name)) continue;
    addThreadFamily({
      fontFamily: family.name,
      faces: family.faces.map((face) => ({
        variant: face.variant,
        path: face.path,
        // Read once per thread: which characters the face has decides which Noto fallbacks a text needs.
        coverage: () => fontFileCoverage(fs.readFileSync(face.path)),
      })),
    });
  }
}

/**
 * PDF and HTML5 (web fonts) embed a subset of every font they draw with: a face whose fsType forbids it fails the
 * file with FONT_NOT_EMBEDDABLE naming the font, never a silent licence breach.
 */
export function requireEmbeddable(families: readonly BrandFamily[] | undefined, output: string): void {
  for (const family of families ?? []) {
    const blocked = family.faces.find((face) => !face.embeddable);
    if (!blocked) continue;
    throw new AppError(
      'FONT_NOT_EMBEDDABLE',
      `the brand font '${family.displayName}' ${blocked.variant} (fontId ${blocked.fontId}, ${blocked.fileName}) may not be embedded: its licence (OS/2 fsType) forbids embedding, so it cannot go into ${output}; it can still be used in PNG, JPG, WEBP, GIF and MP4 exports`,
    );
  }
}
