// `placard render --font <file>` (issue 17): font files on the designer's disk drawn like a team's brand fonts, with
// no server. Each file is read and checked by the upload's own reader (readFontFile: TTF, OTF, WOFF, WOFF2, TTC,
// variable instances made static), its faces written to a temporary directory, and the document's elements that
// name one of their families drawn with them under an internal name (brandFamilyName), exactly as an export of an
// uploaded font is: so a template can be checked locally in the brand's typeface before anything is uploaded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DesignDocument } from '../domain/design.schema.js';
import type { FontLookup } from '../elements/element-kind.js';
import { AppError } from '../errors.js';
import { FontFileError, readFontFile } from '../render/text/brand-font-file.js';
import { type BrandFamily, brandFamilyName } from '../render/text/brand-fonts.js';
import { catalogueFonts } from '../render/text/fonts.js';

export interface LocalFonts {
  /** The local families first, then the catalogue (FONTFAMILY and FONTVARIANT changes). */
  lookup: FontLookup;
  /** What a render job carries (RenderJob.brandFamilies). */
  families: BrandFamily[];
  /** The document with every element naming a local family drawn with it (its internal name). */
  rewrite(document: DesignDocument): DesignDocument;
  /** Removes the temporary files. */
  close(): void;
}

/** The elements that carry a fontFamily (text, buttons), as the export's brand font preparation walks them. */
function* styledElements(document: DesignDocument): Generator<{ fontFamily: string }> {
  for (const size of document.sizes) {
    for (const slide of size.slides ?? []) {
      for (const element of slide.elements ?? []) {
        const styled = element as { fontFamily?: unknown };
        if (typeof styled.fontFamily === 'string') yield styled as { fontFamily: string };
      }
    }
  }
}

// Face ids never repeat in a process: the internal family name derives from them, and a render thread keeps the files
// of a name it has seen, so a second render (tests run several in one process) must not reuse a removed file's name.
let nextFontId = 0;

/** Reads the `--font` files; a file that is no usable font is FONT_REJECTED naming it, as an upload would answer. */
export async function loadLocalFonts(files: readonly string[]): Promise<LocalFonts> {
  const dir = files.length > 0 ? fs.mkdtempSync(path.join(os.tmpdir(), 'placard-cli-fonts-')) : null;
  const close = () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  };
  const byFamily = new Map<string, { displayName: string; faces: BrandFamily['faces'] }>();
  try {
    for (const file of files) {
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(file);
      } catch (error) {
        throw new AppError('FONT_REJECTED', `--font ${file}: cannot be read (${(error as Error).message})`);
      }
      let faces: Awaited<ReturnType<typeof readFontFile>>['faces'];
      try {
        ({ faces } = await readFontFile(bytes, path.basename(file)));
      } catch (error) {
        if (error instanceof FontFileError) throw new AppError('FONT_REJECTED', `--font ${file} ${error.message}`);
        throw error;
      }
      for (const face of faces) {
        nextFontId += 1;
        const id = nextFontId;
        const key = face.family.toLowerCase();
        const family = byFamily.get(key) ?? { displayName: face.family, faces: [] };
        if (family.faces.some((known) => known.variant === face.variant)) {
          throw new AppError(
            'FONT_REJECTED',
            `--font ${file}: ${face.family} ${face.variant} is already given by another --font file`,
          );
        }
        const local = path.join(dir!, `${id}.${face.storedFormat}`);
        fs.writeFileSync(local, face.bytes);
        family.faces.push({
          fontId: id,
          variant: face.variant,
          path: local,
          embeddable: face.embeddable,
          fileName: path.basename(file),
        });
        byFamily.set(key, family);
      }
    }
  } catch (error) {
    close();
    throw error;
  }
  const families = new Map<string, BrandFamily>();
  for (const [key, family] of byFamily) {
    const name = brandFamilyName(
      0,
      key,
      family.faces.map((face) => face.fontId),
    );
    families.set(key, { name, displayName: family.displayName, faces: family.faces });
  }
  return {
    families: [...families.values()],
    lookup: {
      family(name) {
        const found = families.get(name.trim().toLowerCase());
        if (!found) return catalogueFonts.family(name);
        return { fontFamily: found.displayName, variants: found.faces.map((face) => face.variant) };
      },
    },
    rewrite(document) {
      if (families.size === 0) return document;
      const rewritten = structuredClone(document);
      for (const element of styledElements(rewritten)) {
        const family = families.get(element.fontFamily.trim().toLowerCase());
        if (family) element.fontFamily = family.name;
      }
      return rewritten;
    },
    close,
  };
}
