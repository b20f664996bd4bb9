// The HTML5 packager (SPEC §6 `html`): one size of a design as a zip an ad network accepts. Stages as for stills:
// resolve the size's media, write each element's markup through its kind (elements/*/html.ts), subset the fonts, then
// write index.html with the network's click code and manifest, zip, and validate the zip against the network's rules
// (validate.ts). A blocking finding fails with AD_NETWORK_RULE; advice comes back as warnings.
import { createCanvas } from '@napi-rs/canvas';
import type { DesignDocument } from '../../domain/design.schema.js';
import { FINAL_FRAME, loopCount, motionAt, sizeDuration, slideSpans } from '../../domain/timeline.js';
import type { BaseElement } from '../../elements/common.js';
import { kindOfElement } from '../../elements/registry.js';
import { AppError } from '../../errors.js';
import type { HtmlContext } from '../../render/html-types.js';
import type { AssetFetcher } from '../../render/media/assets.js';
import { loadSharp } from '../../render/media/load-sharp.js';
import type { ResolvedAssets } from '../../render/types.js';
import { fetcherOf, frameOf, renderImage, resolveAssets } from '../pipeline.js';
import { CLICK_SCRIPT_ID, clickCodeFor, elementLinkAnchor, supportsElementLinks } from './click.js';
import { EmojiPainter } from './emoji-images.js';
import { FontBook } from './fonts.js';
import { manifestFiles } from './manifest.js';
import { minifyKeepingClickCode } from './minify.js';
import { elementAnimation, motionStyle, slideAnimation } from './motion-css.js';
import { type Html5Settings, resolveHtml5Settings } from './settings.js';
import { escapeHtml, type PendingSvgText, textSpans, textSvg } from './text-html.js';
import { type Finding, validatePackage } from './validate.js';

export interface Html5PackageOptions {
  /** The zip's file name without `.zip` (checked against name-length rules). Default `<design>-<W>x<H>`. */
  zipName?: string;
  fetcher?: AssetFetcher;
}

export interface Html5Package {
  /** The zip to deliver. */
  zip: Buffer;
  /** The backup JPG to deliver beside the zip, for networks that want it outside (null otherwise). */
  backup: Buffer | null;
  /** Advice of the validator and overridden settings. */
  warnings: string[];
  /** Every finding of the validator (advice only: a blocking one throws). */
  findings: Finding[];
  /** Path → bytes of what the zip holds. */
  files: Map<string, Buffer>;
}

const num = (value: number) => String(Math.round(value * 1000) / 1000);
/** Formats that are compressed already: stored in the zip, not deflated again. */
const STORED = new Set(['jpg', 'jpeg', 'png', 'gif', 'woff2', 'woff', 'mp4', 'webm', 'mov']);

function mergedAssets(all: ResolvedAssets[]): ResolvedAssets {
  return { image: (src) => all.map((a) => a.image(src)).find((image) => image !== undefined) };
}

async function zipBuffer(files: Map<string, Buffer>): Promise<Buffer> {
  // Imported on the first package, not when the module loads: `placard render` of a JPG loads this module through the
  // format registry, and yazl with its CRC module cost it ~10 ms (issue 21: cold start).
  const { default: yazl } = await import('yazl');
  const zip = new yazl.ZipFile();
  // A fixed date: the same design and settings give the same bytes (caches, tests).
  const mtime = new Date('2020-01-01T00:00:00Z');
  for (const [name, bytes] of files) {
    const ext = name.split('.').pop() ?? '';
    zip.addBuffer(bytes, name, { mtime, compress: !STORED.has(ext) });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

export async function packageHtml5(
  document: DesignDocument,
  sizeIndex: number,
  given: Html5Settings = {},
  options: Html5PackageOptions = {},
): Promise<Html5Package> {
  const settings = resolveHtml5Settings(given);
  const { network } = settings;
  const [size] = frameOf(document, sizeIndex, 0);
  const fetcher = fetcherOf(options);
  const assets = mergedAssets(
    await Promise.all(size.slides.map((_, slide) => resolveAssets(document, sizeIndex, slide, { fetcher }))),
  );
  const files = new Map<string, Buffer>();
  const counters = new Map<string, number>();
  const addFile = (stem: string, extension: string, bytes: Uint8Array) => {
    const safeStem = stem.replace(/[^A-Za-z0-9_-]/g, '') || 'file';
    const n = (counters.get(safeStem) ?? 0) + 1;
    counters.set(safeStem, n);
    const name = `${safeStem}${n}.${extension.toLowerCase()}`;
    files.set(name, Buffer.from(bytes));
    return name;
  };
  const book = new FontBook();
  const pendingSvgs: PendingSvgText[] = [];
  const emojiScale = Math.max(1, ...settings.scales);
  const emojiFiles = new EmojiPainter(emojiScale, (png) => addFile('emoji', 'png', png));
  // An SVG shown by <img> loads nothing else: its emoji images are data: URLs.
  const emojiInline = new EmojiPainter(emojiScale, (png) => `data:image/png;base64,${png.toString('base64')}`);

  const hc: HtmlContext = {
    assets,
    escape: escapeHtml,
    text(layout, color, box) {
      if (!settings.convertCustomFonts) return textSpans(layout, color, box, book, emojiFiles);
      if (!layout.lines.some((line) => line.runs.some((run) => run.text.trim()))) return '';
      const svg = textSvg(layout, color, box, book, emojiInline);
      const file = addFile('text', 'svg', Buffer.alloc(0));
      pendingSvgs.push({ ...svg, file });
      const m = svg.margin;
      return `<img src="${file}" alt="" style="position:absolute;left:${-m}px;top:${-m}px;width:${num(box.width + 2 * m)}px;height:${num(box.height + 2 * m)}px">`;
    },
    async raster(width, height, draw) {
      const names: string[] = [];
      for (const scale of settings.scales) {
        const w = Math.max(1, Math.ceil(width * scale));
        const h = Math.max(1, Math.ceil(height * scale));
        const canvas = createCanvas(w, h);
        const ctx = canvas.getContext('2d');
        ctx.scale(scale, scale);
        draw(ctx);
        const pixels = canvas.data();
        let opaque = true;
        for (let i = 3; i < pixels.length; i += 4) {
          if (pixels[i] !== 255) {
            opaque = false;
            break;
          }
        }
        const sharp = await loadSharp();
        const image = sharp(pixels, { raw: { width: w, height: h, channels: 4, premultiplied: true } });
        const bytes = opaque
          ? await image.removeAlpha().jpeg({ quality: settings.quality, mozjpeg: true }).toBuffer()
          : await image
              .png(settings.quality < 100 ? { palette: true, quality: settings.quality } : { compressionLevel: 9 })
              .toBuffer();
        names.push(addFile(scale === 1 ? 'image' : 'image2x', opaque ? 'jpg' : 'png', bytes));
      }
      const style = `position:absolute;left:0;top:0;width:${num(width)}px;height:${num(height)}px`;
      const srcset = names.length === 2 ? ` srcset="${names[1]} 2x"` : '';
      return `<img src="${names[0]}"${srcset} alt="" style="${style}">`;
    },
    addFile,
    allowsVideo(extension) {
      const rules = network.packaging;
      return (
        !rules.forbiddenApis.includes('video') &&
        (rules.allowedExtensions === null || rules.allowedExtensions.includes(extension.toLowerCase()))
      );
    },
    async fetch(url, expect) {
      const media = await fetcher.fetch(url, { expect: [expect === 'video' ? 'VIDEO' : 'IMAGE'] });
      return { bytes: media.bytes, extension: media.format };
    },
  };

  // Elements, slide by slide, in drawing order; each in a box carrying its position, rotation, opacity and motion.
  const total = sizeDuration(size);
  const loops = loopCount(document);
  const iteration = { total, count: loops === 0 ? 'infinite' : String(loops) };
  const spans = slideSpans(size);
  const keyframes: string[] = [];
  const slides: string[] = [];
  let id = 0;
  // Elements with their own link get their own numbered click variable where the network has them.
  const links: string[] = [];
  const ownLinks = supportsElementLinks(network);
  for (const span of spans) {
    const isLast = span.slideIndex === spans.length - 1;
    let inner = '';
    for (const element of size.slides[span.slideIndex].elements as BaseElement[]) {
      if (element.visible === false) continue;
      const kind = kindOfElement(element);
      let markup = kind.toHtml ? await kind.toHtml(element, hc) : '';
      if (element.link && ownLinks) {
        links.push(element.link);
        markup += elementLinkAnchor(network, links.length + 1, settings.target);
      }
      id += 1;
      const motion = elementAnimation(`m${id}`, element, span, isLast, size, iteration);
      if (motion) keyframes.push(motion.keyframes);
      const still = motionStyle(element, motionAt(element, FINAL_FRAME, size), false);
      // data-element-name: the studio's canvas is this markup and finds each element by its name.
      inner += `<div class="e" data-element-name="${escapeHtml(element.name)}" style="left:${num(element.x)}px;top:${num(element.y)}px;width:${num(element.width)}px;height:${num(element.height)}px;${still}${motion ? `;${motion.animation}` : ''}">${markup}</div>`;
    }
    const show = slideAnimation(`s${span.slideIndex}`, span, isLast, iteration);
    if (show) keyframes.push(show.keyframes);
    slides.push(`<div class="s"${show ? ` style="${show.animation}"` : ''}>${inner}</div>`);
  }

  // Fonts: subset once every text is written; then the text SVGs that embed them.
  // Text SVGs embed woff2 whatever the network: inside an SVG the font is data, not a file of the zip.
  const faces = await book.subsets(settings.convertCustomFonts ? 'woff2' : settings.fontFormat);
  const faceCss = settings.convertCustomFonts
    ? ''
    : faces
        .map(
          (face) =>
            `@font-face{${face.descriptors};src:url(${addFile('font', settings.fontFormat, face.bytes)}) format("${settings.fontFormat}")}`,
        )
        .join('');
  const facesById = new Map(faces.map((face) => [face.id, face]));
  for (const svg of pendingSvgs) files.set(svg.file, Buffer.from(svg.render(facesById), 'utf8'));

  // Backup image: the final frame, as the still export draws it.
  const backupWanted =
    settings.includeFallbackImage ||
    network.packaging.backupImage === 'outsideZipRequired' ||
    network.packaging.backupImage === 'insideZip';
  const outside =
    network.packaging.backupImage === 'outsideZip' || network.packaging.backupImage === 'outsideZipRequired';
  const backup = backupWanted
    ? await renderImage(document, sizeIndex, size.slides.length - 1, {
        format: 'jpg',
        quality: settings.quality,
        fetcher,
      })
    : null;
  // includeFallbackImage puts the JPG in the zip as the seed says, whatever the network; a network that wants it
  // beside the zip gets it there too.
  const inside = backup !== null && (!outside || settings.includeFallbackImage);
  if (backup && inside) files.set('backup.jpg', backup);

  const click = clickCodeFor(network, settings.clickUrl, settings.target, links);
  const css = [
    'html,body{margin:0;padding:0}',
    `#ad{position:relative;overflow:hidden;width:${size.width}px;height:${size.height}px;background:${escapeHtml(size.backgroundColor ?? '#FFFFFF')}}`,
    // Clicks fall through the drawing to the click area behind it, except on elements with their own link.
    '.s{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none}',
    '.l{position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:auto;display:block}',
    '.e{position:absolute;transform-origin:50% 50%}',
    '.r{position:absolute;white-space:pre;line-height:1}',
    faceCss,
    ...keyframes,
  ].join('\n');
  const title = escapeHtml(document.name ?? 'Ad');
  const noscript = inside ? '<noscript><img src="backup.jpg" alt=""></noscript>' : '';
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="ad.size" content="width=${size.width},height=${size.height}">
<meta name="viewport" content="width=${size.width},height=${size.height}">
<title>${title}</title>
${click.head}
<style>
${css}
</style>
</head>
<body>
<div id="ad">
${click.overlay}
${slides.join('\n')}
</div>
${noscript}
${click.tail}
</body>
</html>
`;
  const index = 'index.html';
  if (settings.minifyHtml) {
    files.set(index, Buffer.from(await minifyKeepingClickCode(html, CLICK_SCRIPT_ID), 'utf8'));
    if (network.packaging.includeUnminifiedSource) files.set(`original/${index}`, Buffer.from(html, 'utf8'));
  } else {
    files.set(index, Buffer.from(html, 'utf8'));
  }
  for (const [name, bytes] of manifestFiles(network, {
    title: document.name ?? 'Ad',
    width: size.width,
    height: size.height,
    index,
    clickUrl: settings.clickUrl,
  })) {
    files.set(name, bytes);
  }
  // index.html first: some upload tools take the first HTML entry as the primary one.
  const ordered = new Map([[index, files.get(index)!], ...[...files].filter(([name]) => name !== index)]);
  const zip = await zipBuffer(ordered);
  const findings = validatePackage(network, {
    files: ordered,
    zipBytes: zip.byteLength,
    zipName: options.zipName ?? `${document.name ?? 'ad'}-${size.width}x${size.height}`,
    width: size.width,
    height: size.height,
    playSeconds: total,
    loops,
    index,
  });
  const blocking = findings.filter((f) => f.severity === 'block');
  if (blocking.length > 0) {
    throw new AppError(
      'AD_NETWORK_RULE',
      `the HTML5 package breaks ${blocking.length === 1 ? 'a rule' : `${blocking.length} rules`} of ${network.name}: ${blocking.map((f) => `${f.rule}: ${f.message}`).join('; ')}`,
      { details: blocking.map((f) => ({ path: `/rules/${f.rule}`, message: f.message })) },
    );
  }
  return {
    zip,
    backup: backup && outside ? backup : null,
    warnings: [...settings.notes, ...findings.map((f) => `${f.rule}: ${f.message}`)],
    findings,
    files: ordered,
  };
}
