// Text of an HTML5 package, placed line by line and run by run where the raster renderer (text-layout.ts) placed it,
// so the browser never re-wraps it: absolutely positioned runs with `white-space: pre` and `line-height: 1`, whose
// baseline then sits baselineOffset(size) below their top (fonts.ts overrides every face's ascent and descent).
// With convertCustomFonts the same runs go into a standalone SVG file (fonts embedded as data: URLs, since an SVG
// shown by <img> may load nothing), for networks that accept no font files.
import type { LaidRun, TextLayout } from '../../render/text/text-layout.js';
import { type EmojiPainter, graphemesOf, isEmoji } from './emoji-images.js';
import { baselineOffset, type FontBook, type SubsetFace } from './fonts.js';

const num = (value: number) => String(Math.round(value * 1000) / 1000);

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

interface Underline {
  x: number;
  y: number;
  width: number;
  thickness: number;
}

function underlines(layout: TextLayout): Underline[] {
  const thickness = Math.max(1, layout.fontSize / 14);
  return layout.lines.flatMap((line) =>
    line.runs
      .filter((run) => run.style.link)
      .map((run) => ({
        x: run.x,
        y: line.baseline + layout.fontSize * 0.12,
        width: run.width - Math.max(0, layout.letterSpacing),
        thickness,
      })),
  );
}

/** A run's text with its emoji wrapped in `open`…`close` (made invisible: an image of each is drawn over it). */
function hidingEmoji(run: LaidRun, open: string, close: string, hide: boolean): string {
  if (!hide) return escapeHtml(run.text);
  return graphemesOf(run.text)
    .map((g) => (isEmoji(run.font, g) ? `${open}${escapeHtml(g)}${close}` : escapeHtml(g)))
    .join('');
}

/** HTML spans of a layout in its box. */
export function textSpans(
  layout: TextLayout,
  color: string,
  box: { width: number; height: number },
  book: FontBook,
  emoji?: EmojiPainter,
) {
  let html = '';
  for (const u of underlines(layout)) {
    html += `<div style="position:absolute;left:${num(u.x)}px;top:${num(u.y)}px;width:${num(u.width)}px;height:${num(u.thickness)}px;background:${escapeHtml(color)}"></div>`;
  }
  for (const line of layout.lines) {
    for (const run of line.runs) {
      if (!run.text.trim()) continue;
      const font = book.use(run.font, run.text);
      const dir = run.direction === 'rtl' ? ';direction:rtl;unicode-bidi:isolate' : '';
      const images = emoji?.images(run, layout.letterSpacing) ?? [];
      const text = hidingEmoji(run, '<span style="color:transparent">', '</span>', images.length > 0);
      html += `<span class="r" style="left:${num(run.x)}px;top:${num(line.baseline - baselineOffset(font.size))}px;font:${font.font};letter-spacing:${num(layout.letterSpacing)}px${dir}">${text}</span>`;
      for (const image of images) {
        html += `<img src="${escapeHtml(image.src)}" alt="" style="position:absolute;left:${num(run.x + image.left)}px;top:${num(line.baseline + image.top)}px;width:${num(image.width)}px;height:${num(image.height)}px">`;
      }
    }
  }
  if (!html) return '';
  const clip = layout.clip ? ';overflow:hidden' : '';
  return `<div style="position:absolute;left:0;top:0;width:${num(box.width)}px;height:${num(box.height)}px;color:${escapeHtml(color)}${clip}">${html}</div>`;
}

export interface PendingSvgText {
  file: string;
  /** Margin around the box (text that overflows an unclipped box stays visible). */
  margin: number;
  render(faces: ReadonlyMap<string, SubsetFace>): string;
}

/** A text SVG file's markup, completed once the fonts are subset. */
export function textSvg(
  layout: TextLayout,
  color: string,
  box: { width: number; height: number },
  book: FontBook,
  emoji?: EmojiPainter,
): Omit<PendingSvgText, 'file'> {
  const margin = layout.clip ? 0 : Math.ceil(layout.fontSize * 2);
  const used = new Set<string>();
  let body = '';
  for (const u of underlines(layout)) {
    body += `<rect x="${num(u.x)}" y="${num(u.y)}" width="${num(u.width)}" height="${num(u.thickness)}"/>`;
  }
  for (const line of layout.lines) {
    for (const run of line.runs) {
      if (!run.text.trim()) continue;
      const font = book.use(run.font, run.text);
      for (const face of font.faces) used.add(face);
      const rtl = run.direction === 'rtl';
      const images = emoji?.images(run, layout.letterSpacing) ?? [];
      const text = hidingEmoji(run, '<tspan fill-opacity="0">', '</tspan>', images.length > 0);
      body += `<text x="${num(rtl ? run.x + run.width : run.x)}" y="${num(line.baseline)}"${rtl ? ' direction="rtl"' : ''} style="font:${font.font};letter-spacing:${num(layout.letterSpacing)}px">${text}</text>`;
      for (const image of images) {
        body += `<image href="${escapeHtml(image.src)}" x="${num(run.x + image.left)}" y="${num(line.baseline + image.top)}" width="${num(image.width)}" height="${num(image.height)}"/>`;
      }
    }
  }
  const width = box.width + 2 * margin;
  const height = box.height + 2 * margin;
  return {
    margin,
    render(faces) {
      const css = [...used]
        .map((id) => faces.get(id))
        .filter((face) => face !== undefined)
        .map(
          (face) => `@font-face{${face.descriptors};src:url(data:font/woff2;base64,${face.bytes.toString('base64')})}`,
        )
        .join('');
      return `<svg xmlns="http://www.w3.org/2000/svg" width="${num(width)}" height="${num(height)}" viewBox="${-margin} ${-margin} ${num(width)} ${num(height)}"><style>${css}text{white-space:pre}</style><g fill="${escapeHtml(color)}">${body}</g></svg>`;
    },
  };
}
