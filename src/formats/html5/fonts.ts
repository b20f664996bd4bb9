// Web fonts of an HTML5 package: the font files the raster renderer drew each run with (font-registry aliases,
// `family|variant|subset`), subset to the characters the package shows and re-encoded as woff2 (subset-font, i.e.
// HarfBuzz). Every face gets the same ascent/descent overrides, so a line's baseline sits at a known distance from
// the top of its box whatever the font (see baselineOffset) and lines can be placed where the renderer placed them.
import { readFile } from 'node:fs/promises';
import { fontFile } from '../../render/text/fonts.js';

// HarfBuzz (subset-font, with its WOFF2 codecs) is imported by the first package that embeds a font, once per
// process or thread: every render thread and `placard render` import this module, most never subset (issue 21).
// A package name, not a relative module: render threads under tsx resolve those only through static imports.
let subsetter: Promise<typeof import('subset-font').default> | undefined;
const loadSubsetter = () => {
  subsetter ??= import('subset-font').then((module) => module.default);
  return subsetter;
};

/** ascent-override and descent-override of every face, as fractions of the font size. */
const ASCENT = 0.8;
const DESCENT = 0.2;
/**
 * Distance from the top of a run's box to its baseline at `size` px. With line-height 1 the line box is the font size
 * tall; Chromium rounds the (overridden) ascent and descent to whole pixels and centres them in it (measured).
 */
export function baselineOffset(size: number): number {
  const ascent = Math.round(ASCENT * size);
  const descent = Math.round(DESCENT * size);
  return ascent + (size - ascent - descent) / 2;
}

interface Face {
  id: string;
  family: string;
  variant: string;
  subset: string;
  chars: Set<string>;
}

export interface FontCss {
  /** The CSS `font` shorthand with the package's face ids. */
  font: string;
  /** Ids of the faces the run may draw with. */
  faces: string[];
  /** Font size in px. */
  size: number;
}

export interface SubsetFace {
  id: string;
  bytes: Buffer;
  /** The @font-face rule without its `src`. */
  descriptors: string;
}

const RUN_FONT = /^(italic )?(\d+) ([\d.]+)px (.+)$/;

export class FontBook {
  private readonly faces = new Map<string, Face>();

  /** Maps a run's canvas font (text-paint cssFont) to package faces, remembering the run's characters. */
  use(canvasFont: string, text: string): FontCss {
    const match = RUN_FONT.exec(canvasFont);
    if (!match) throw new Error(`unexpected canvas font '${canvasFont}'`);
    const [, italic, weight, size, list] = match;
    const ids: string[] = [];
    for (const quoted of list.split(', ')) {
      const alias = quoted.replace(/^"|"$/g, '');
      let face = this.faces.get(alias);
      if (!face) {
        const [family, variant, subset] = alias.split('|');
        face = { id: `f${this.faces.size}`, family, variant, subset, chars: new Set() };
        this.faces.set(alias, face);
      }
      for (const char of text) face.chars.add(char);
      ids.push(face.id);
    }
    return {
      font: `${italic ?? ''}${weight} ${size}px ${ids.join(',')}`,
      faces: ids,
      size: Number(size),
    };
  }

  /** The used faces subset to their characters; faces no character of which they hold are dropped by the caller. */
  async subsets(format: 'woff2' | 'woff' = 'woff2'): Promise<SubsetFace[]> {
    const out: SubsetFace[] = [];
    for (const face of this.faces.values()) {
      const path = fontFile(face.family, face.variant, face.subset, 'woff2');
      if (!path || face.chars.size === 0) continue;
      const subsetFont = await loadSubsetter();
      const bytes = await subsetFont(await readFile(path), [...face.chars].join(''), { targetFormat: format });
      const weight = Number.parseInt(face.variant, 10) || 400;
      const style = face.variant.endsWith('italic') ? 'italic' : 'normal';
      out.push({
        id: face.id,
        bytes,
        descriptors: `font-family:${face.id};font-weight:${weight};font-style:${style};font-display:block;ascent-override:${ASCENT * 100}%;descent-override:${DESCENT * 100}%;line-gap-override:0%`,
      });
    }
    return out;
  }
}
