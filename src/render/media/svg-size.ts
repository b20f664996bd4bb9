// Skia sizes an SVG image from its root's width and height. Without them (common in icon sets, which give only a
// viewBox) it reports the viewBox's proportions but draws the content at another scale, so the picture overflows the
// box it is drawn into. Browsers size such an SVG from its viewBox; this gives the root the matching width and height
// before decoding, so what Skia draws is what an <img> shows.
const ROOT = /<svg\b[^>]*>/i;
const NUMBER = '[-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[-+]?\\d+)?';
const VIEW_BOX = new RegExp(
  `\\sviewBox\\s*=\\s*["']\\s*${NUMBER}[\\s,]+${NUMBER}[\\s,]+(${NUMBER})[\\s,]+(${NUMBER})\\s*["']`,
  'i',
);

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}\\s*=\\s*["']([^"']*)["']`, 'i').exec(tag)?.[1];
}

/** Whether a width or height attribute gives an absolute length (`120`, `120px`), which Skia can size from. */
function absolute(value: string | undefined): boolean {
  return value !== undefined && new RegExp(`^\\s*${NUMBER}\\s*(?:px)?\\s*$`, 'i').test(value);
}

/** The markup with an absolute width and height on its root, taken from its viewBox when it lacks them. */
export function withIntrinsicSize(markup: string): string {
  const root = ROOT.exec(markup);
  if (!root) return markup;
  const tag = root[0];
  const width = attribute(tag, 'width');
  const height = attribute(tag, 'height');
  if (absolute(width) && absolute(height)) return markup;
  const viewBox = VIEW_BOX.exec(tag);
  if (!viewBox) return markup;
  const [vw, vh] = [Number(viewBox[1]), Number(viewBox[2])];
  if (!(vw > 0 && vh > 0)) return markup;
  const stripped = tag.replace(/\s(?:width|height)\s*=\s*["'][^"']*["']/gi, '');
  const sized = stripped.replace(/^<svg\b/i, `<svg width="${vw}" height="${vh}"`);
  return markup.slice(0, root.index) + sized + markup.slice(root.index + tag.length);
}
