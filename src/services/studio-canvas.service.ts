// The studio's canvas (issue 19): the markup of one size exactly as the HTML5 export writes it, made by the same
// packager on the render threads, with the package's files (fonts, rasters) inlined as data: URLs so the browser can
// place it in the editor's page. Text is laid out here, by Skia's metrics, line by line: the browser never breaks a
// line itself, so the canvas is the export. See docs/architecture.md (studio canvas) for why a round trip rather than
// the same shaping in the browser.

import type { DesignDocument } from '../domain/design.schema.js';
import { readDocument } from '../domain/design.schema.js';
import { AppError } from '../errors.js';
import { unzipPackage } from '../formats/html5/unzip.js';

export interface StudioCanvasDeps {
  /** The HTML5 zip of one size (generic IAB network, font files kept, unminified), rendered off the event loop. */
  renderPackage(document: DesignDocument, sizeIndex: number): Promise<Uint8Array>;
}

export interface StudioCanvas {
  width: number;
  height: number;
  backgroundColor: string;
  /** The @font-face rules of the subset fonts the size's texts use, their files inlined. */
  fontCss: string;
  /**
   * The package's `@keyframes` (elements' animations, slides' visibility), named after the size (`z<sizeIndex>-…`)
   * as the markup's `animation` declarations are: several sizes' canvases share one page, and the export's names
   * (m1, s0) repeat in every size.
   */
  motionCss: string;
  /** The inside of the package's `#ad` box: slides of elements, each `div.e[data-element-name]`. */
  markup: string;
}

const MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  woff2: 'font/woff2',
  woff: 'font/woff',
  ttf: 'font/ttf',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/** Rewrites src="…", srcset="… 2x" and url(…) references to the package's files into data: URLs. */
function inlineFiles(text: string, files: Map<string, Buffer>): string {
  return text.replace(/(src="|srcset="|url\()([A-Za-z0-9_-]+\.[a-z0-9]+)/g, (whole, lead: string, name: string) => {
    const bytes = files.get(name);
    if (!bytes) return whole;
    const type = MIME[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
    return `${lead}data:${type};base64,${bytes.toString('base64')}`;
  });
}

/** The export's keyframe names (package.ts: m<n> per element, s<n> per slide). */
const KEYFRAMES = /@keyframes ([ms]\d+)\{(?:[^{}]*\{[^{}]*\})*\}/g;

/**
 * The package's keyframes and its markup with every animation name prefixed. Only `style` attributes are rewritten:
 * text is markup content, so a headline reading "animation:m1 " stays as typed.
 */
function scopeMotion(html: string, markup: string, prefix: string): { motionCss: string; markup: string } {
  // The head's own <style> only: a text of the design may read like a keyframes rule, and must not become one.
  const body = html.indexOf('<body>');
  const from = html.lastIndexOf('<style>', body);
  const css = from >= 0 ? html.slice(from, html.indexOf('</style>', from)) : '';
  const keyframes = [...css.matchAll(KEYFRAMES)].map((m) =>
    m[0].replace(`@keyframes ${m[1]}{`, `@keyframes ${prefix}${m[1]}{`),
  );
  const scoped = markup.replace(/ style="[^"]*"/g, (attribute) =>
    attribute.replace(/animation:([ms]\d+) /g, (_, name: string) => `animation:${prefix}${name} `),
  );
  return { motionCss: keyframes.join('\n'), markup: scoped };
}

export function createStudioCanvasService(deps: StudioCanvasDeps) {
  return {
    async canvas(raw: unknown, sizeIndex: number): Promise<StudioCanvas> {
      const document = readDocument(raw, { pointer: '/document' });
      const size = document.sizes[sizeIndex];
      if (!size) {
        throw new AppError('VALIDATION_FAILED', `sizeIndex ${sizeIndex} is not a size of the document`, {
          details: [{ path: '/sizeIndex', message: `must be below ${document.sizes.length}` }],
        });
      }
      const files = await unzipPackage(await deps.renderPackage(document, sizeIndex));
      const html = files.get('index.html')?.toString('utf8') ?? '';
      const faces = html.match(/@font-face\{[^}]*\}/g) ?? [];
      const start = html.indexOf('<div id="ad">');
      const end = html.lastIndexOf('</div>', html.indexOf('</body>'));
      const inner = start >= 0 && end > start ? html.slice(start + '<div id="ad">'.length, end) : '';
      const { motionCss, markup } = scopeMotion(html, inner, `z${sizeIndex}-`);
      return {
        width: size.width,
        height: size.height,
        backgroundColor: size.backgroundColor ?? '#FFFFFF',
        fontCss: inlineFiles(faces.join('\n'), files),
        motionCss,
        markup: inlineFiles(markup, files),
      };
    },
  };
}
export type StudioCanvasService = ReturnType<typeof createStudioCanvasService>;
