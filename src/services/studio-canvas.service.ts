// The studio's canvas (issue 19): the markup of one size exactly as the HTML5 export writes it, made by the same
// packager on the render threads, with the package's files (fonts, rasters) inlined as data: URLs so the browser can
// place it in the editor's page. Text is laid out here, by Skia's metrics, line by line: the browser never breaks a
// line itself, so the canvas is the export. See docs/architecture.md (studio canvas) for why a round trip rather than
// the same shaping in the browser, and for the measurements behind the caching below.
//
// The editor asks again after every change it cannot draw itself, so the answer is made element by element: each
// element's markup is cached under the hash of what it is drawn from (the element, its size's and slides' settings,
// the document's), and only the elements not in the cache are packaged — together, in one package of the size with
// the others left out. A typed letter packages one text element; a colour, visibility or z-order change packages one
// element or none. Fonts are named by the hash of their rule, so the browser keeps each face once and the answer
// leaves out the faces it says it has.

import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { DesignDocument } from '../domain/design.schema.js';
import { readDocument } from '../domain/design.schema.js';
import { AppError } from '../errors.js';
import { escapeHtml } from '../formats/html5/text-html.js';
import { unzipPackage } from '../formats/html5/unzip.js';
import { TTL_WITHOUT_TIMER } from '../lru-ttl.js';

export interface StudioCanvasDeps {
  /** The HTML5 zip of one size (generic IAB network, font files kept, unminified), rendered off the event loop. */
  renderPackage(document: DesignDocument, sizeIndex: number): Promise<Uint8Array>;
  /** Bytes of element markup and font rules kept between requests (default 64 MB). */
  cacheBytes?: number;
}

export interface StudioCanvas {
  width: number;
  height: number;
  backgroundColor: string;
  /** The @font-face rules (files inlined) of the faces the markup uses, less those the caller said it has. */
  fontCss: string;
  /** The font-family names of the rules in `fontCss`. */
  faces: string[];
  /**
   * The `@keyframes` of the elements' animations and the slides' visibility, named by a hash of their rule (`pk…`),
   * as the markup's `animation` declarations are: drawings of several packages and sizes share one page, and the
   * export's own names (m1, s0) repeat in every package. The editor turns them on only while the timeline drives it.
   */
  motionCss: string;
  /** Slides of elements, each `div.e[data-element-name]`; hidden elements are drawn with `display:none`. */
  markup: string;
}

/** Where the time of one answer went, for the Server-Timing header. */
export interface CanvasTimings {
  validateMs: number;
  /** Packaging the elements the cache did not hold (0 when it held them all). */
  renderMs: number;
  /** Unzipping, inlining and splitting that package. */
  splitMs: number;
  assembleMs: number;
  /** Elements packaged for this answer, of `elements`. */
  packaged: number;
  elements: number;
}

interface DrawnFace {
  name: string;
  css: string;
}

interface DrawnElement {
  /** The element's `div.e`, its fonts and animations renamed to their content names. */
  markup: string;
  faces: DrawnFace[];
  motion: DrawnFace[];
}

/** The slides' own boxes: each `<div class="s"…>`'s attributes (its visibility animation), and their keyframes. */
interface DrawnSlides {
  attributes: string[];
  motion: DrawnFace[];
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

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** The start of an element's box as the packager writes it (package.ts). */
const boxStart = (name: string) => `<div class="e" data-element-name="${escapeHtml(name)}" style="`;

/**
 * A text run's font list as the packager writes it (text-html.ts textSpans). Anchored on the span's own start: text
 * content is escaped, so it can never spell `<span class="r" style="`.
 */
const RUN_FONT =
  /(<span class="r" style="left:[-\d.]+px;top:[-\d.]+px;font:(?:italic )?\d+ [\d.]+px )(f\d+(?:,f\d+)*)/g;

/** The export's keyframe names (package.ts: m<n> per element, s<n> per slide). */
const KEYFRAMES = /@keyframes ([ms]\d+)(\{(?:[^{}]*\{[^{}]*\})*\})/g;

/** The package's keyframes by their package name, from the head's own <style> (a text may read like a rule). */
function packageKeyframes(html: string): Map<string, string> {
  const body = html.indexOf('<body>');
  const from = html.lastIndexOf('<style>', body);
  const css = from >= 0 ? html.slice(from, html.indexOf('</style>', from)) : '';
  return new Map([...css.matchAll(KEYFRAMES)].map((m) => [m[1], m[2]]));
}

/**
 * Renames the animations of `style` attributes to names hashing their keyframes, adding the renamed rules to `used`.
 * Only attributes are rewritten: text is escaped content, so a headline reading "animation:m1 " stays as typed.
 */
function renameMotion(markup: string, keyframes: Map<string, string>, used: Map<string, DrawnFace>): string {
  return markup.replace(/ style="[^"]*"/g, (attribute) =>
    attribute.replace(/animation:([ms]\d+) /g, (whole, id: string) => {
      const frames = keyframes.get(id);
      if (!frames) return whole;
      const name = `pk${sha(frames).slice(0, 16)}`;
      used.set(name, { name, css: `@keyframes ${name}${frames}` });
      return `animation:${name} `;
    }),
  );
}

/**
 * The packaged elements of one package, by name: the `#ad` box's slides split at each element's box, the package's
 * face ids (f0, f1 … numbered per package) renamed to names that hash their rule, so markup from different packages
 * can share one page.
 */
function splitPackage(
  files: Map<string, Buffer>,
  names: string[],
): { elements: Map<string, DrawnElement>; slides: DrawnSlides } {
  const html = files.get('index.html')?.toString('utf8') ?? '';
  const keyframes = packageKeyframes(html);
  const faceById = new Map<string, DrawnFace>();
  for (const rule of html.match(/@font-face\{[^}]*\}/g) ?? []) {
    const id = /font-family:(f\d+)/.exec(rule)?.[1];
    if (!id) continue;
    const inlined = inlineFiles(rule, files);
    const name = `pf${sha(inlined).slice(0, 16)}`;
    faceById.set(id, { name, css: inlined.replace(`font-family:${id}`, `font-family:${name}`) });
  }
  const start = html.indexOf('<div id="ad">');
  const end = html.lastIndexOf('</div>', html.indexOf('</body>'));
  const ad = start >= 0 && end > start ? html.slice(start, end) : '';
  // Slides: `<div class="s"…>elements</div>`, one per line; text is escaped, so `<div class="s"` starts only a slide.
  const slideMotion = new Map<string, DrawnFace>();
  const parts = ad.split('<div class="s"').slice(1);
  const slideAttributes = parts.map((slide) =>
    renameMotion(slide.slice(0, slide.indexOf('>')), keyframes, slideMotion),
  );
  const slides = parts
    .map((slide) => {
      const body = slide.slice(slide.indexOf('>') + 1).trimEnd();
      return body.endsWith('</div>') ? body.slice(0, -'</div>'.length) : body;
    })
    .join('');
  const drawn = new Map<string, DrawnElement>();
  const starts = names.map((name) => ({ name, at: slides.indexOf(boxStart(name)) }));
  const found = starts.filter((s) => s.at >= 0).sort((a, b) => a.at - b.at);
  for (const [i, { name, at }] of found.entries()) {
    const chunk = slides.slice(at, i + 1 < found.length ? found[i + 1].at : slides.length);
    const used = new Map<string, DrawnFace>();
    const motion = new Map<string, DrawnFace>();
    const markup = renameMotion(inlineFiles(chunk, files), keyframes, motion).replace(
      RUN_FONT,
      (_whole, lead: string, list: string) => {
        const renamed = list.split(',').map((id) => {
          const face = faceById.get(id);
          if (!face) return id;
          used.set(face.name, face);
          return face.name;
        });
        return lead + renamed.join(',');
      },
    );
    drawn.set(name, { markup, faces: [...used.values()], motion: [...motion.values()] });
  }
  return { elements: drawn, slides: { attributes: slideAttributes, motion: [...slideMotion.values()] } };
}

export function createStudioCanvasService(deps: StudioCanvasDeps) {
  const cache = new LRUCache<string, DrawnElement>({
    maxSize: deps.cacheBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (entry) =>
      entry.markup.length + [...entry.faces, ...entry.motion].reduce((sum, face) => sum + face.css.length, 0) + 100,
    // Media is fetched from its URL when packaged: an image changed at its URL shows again within this time.
    ttl: 10 * 60 * 1000,
    ...TTL_WITHOUT_TIMER,
  });
  // The slides' boxes by the hash of what they are drawn from (the same context as the elements').
  const slideCache = new LRUCache<string, DrawnSlides>({ max: 1000 });
  return {
    async canvas(
      raw: unknown,
      sizeIndex: number,
      options: { knownFaces?: readonly string[] } = {},
    ): Promise<{ canvas: StudioCanvas; timings: CanvasTimings }> {
      let clock = performance.now();
      const lap = () => {
        const now = performance.now();
        const ms = now - clock;
        clock = now;
        return ms;
      };
      const document = readDocument(raw, { pointer: '/document' });
      const size = document.sizes[sizeIndex];
      if (!size) {
        throw new AppError('VALIDATION_FAILED', `sizeIndex ${sizeIndex} is not a size of the document`, {
          details: [{ path: '/sizeIndex', message: `must be below ${document.sizes.length}` }],
        });
      }
      // What every element of the size is drawn from besides itself: the document's and the size's settings and the
      // slides' (durations place the final frame). Positions stay in the key: the box's style carries them. The
      // document's name only titles the package: renaming the design must not draw every element again.
      const { sizes: _sizes, name: _name, ...documentSettings } = document;
      const { slides, ...sizeSettings } = size;
      const context = sha(
        JSON.stringify([documentSettings, sizeSettings, slides.map(({ elements: _elements, ...slide }) => slide)]),
      );
      const keyed = slides.map((slide) =>
        slide.elements.map((element) => {
          const { visible: _visible, ...drawnAs } = element;
          return { element, key: sha(`${context}\n${JSON.stringify(drawnAs)}`) };
        }),
      );
      const validateMs = lap();
      const missing = new Set(
        keyed
          .flat()
          .filter(({ key }) => !cache.has(key))
          .map(({ element }) => element.name),
      );
      let renderMs = 0;
      let splitMs = 0;
      const fresh = new Map<string, DrawnElement>();
      let slideBoxes = slideCache.get(context);
      if (missing.size > 0 || !slideBoxes) {
        // The size with only the elements to draw, hidden ones included: the editor shows and hides them itself.
        const part: DesignDocument = {
          ...document,
          sizes: [
            {
              ...size,
              slides: slides.map((slide) => ({
                ...slide,
                elements: slide.elements.filter((e) => missing.has(e.name)).map((e) => ({ ...e, visible: true })),
              })),
            },
          ],
        };
        const files = await unzipPackage(await deps.renderPackage(part, 0));
        renderMs = lap();
        const drawn = splitPackage(files, [...missing]);
        slideBoxes = drawn.slides;
        slideCache.set(context, slideBoxes);
        for (const { element, key } of keyed.flat()) {
          const one = drawn.elements.get(element.name);
          if (!one || !missing.has(element.name)) continue;
          cache.set(key, one);
          fresh.set(key, one);
        }
        splitMs = lap();
      }
      const known = new Set(options.knownFaces ?? []);
      const faces = new Map<string, string>();
      const motion = new Map(slideBoxes.motion.map((rule) => [rule.name, rule.css]));
      const markup = keyed
        .map((elements, slideIndex) => {
          let inner = '';
          for (const { element, key } of elements) {
            const drawn = fresh.get(key) ?? cache.get(key);
            if (!drawn) continue;
            for (const face of drawn.faces) if (!known.has(face.name)) faces.set(face.name, face.css);
            for (const rule of drawn.motion) motion.set(rule.name, rule.css);
            inner +=
              element.visible === false
                ? drawn.markup.replace(boxStart(element.name), `${boxStart(element.name)}display:none;`)
                : drawn.markup;
          }
          return `<div class="s"${slideBoxes.attributes[slideIndex] ?? ''}>${inner}</div>`;
        })
        .join('\n');
      const assembleMs = lap();
      return {
        canvas: {
          width: size.width,
          height: size.height,
          backgroundColor: size.backgroundColor ?? '#FFFFFF',
          fontCss: [...faces.values()].join('\n'),
          faces: [...faces.keys()],
          motionCss: [...motion.values()].join('\n'),
          markup,
        },
        timings: {
          validateMs,
          renderMs,
          splitMs,
          assembleMs,
          packaged: missing.size,
          elements: keyed.flat().length,
        },
      };
    },
  };
}
export type StudioCanvasService = ReturnType<typeof createStudioCanvasService>;
