// SVGCOLORS (SPEC §5): an SVG's distinct colours, in order of first appearance, are replaced one for one by the
// element's `colors`. Colours are found where SVG paints with them — the fill, stroke, stop-color, flood-color,
// lighting-color and color presentation attributes and the same properties in style attributes and <style> — so ids
// such as `url(#abc)` or `href="#abc"` are never mistaken for hex colours. Distinct means distinct RGB: `#F00`,
// `#ff0000` and `rgba(255, 0, 0, .5)` are one colour, and each occurrence keeps its own alpha when replaced.

const PROPERTY = '(?:fill|stroke|stop-color|flood-color|lighting-color|color)';
const NAMED: Record<string, string> = {
  black: '000000',
  white: 'ffffff',
  red: 'ff0000',
  lime: '00ff00',
  green: '008000',
  blue: '0000ff',
  yellow: 'ffff00',
  cyan: '00ffff',
  aqua: '00ffff',
  magenta: 'ff00ff',
  fuchsia: 'ff00ff',
  silver: 'c0c0c0',
  gray: '808080',
  grey: '808080',
  maroon: '800000',
  olive: '808000',
  purple: '800080',
  teal: '008080',
  navy: '000080',
  orange: 'ffa500',
};
const VALUE = `(#[0-9a-fA-F]{8}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3,4}|rgba?\\([^)]*\\)|${Object.keys(NAMED).join('|')})`;
// Attribute form (fill="#F00") and declaration form (fill: #F00), the value followed by a quote, `;`, `}`, `!` or space.
const OCCURRENCE = new RegExp(
  `(\\b${PROPERTY}\\s*=\\s*["']\\s*|\\b${PROPERTY}\\s*:\\s*)${VALUE}(?=\\s*(?:["';}!]|$|\\s))`,
  'gi',
);

interface Parsed {
  /** Six lowercase hex digits. */
  rgb: string;
  /** 0..1 */
  alpha: number;
}

function channel(text: string): number {
  const v = text.trim();
  const n = v.endsWith('%') ? (Number.parseFloat(v) / 100) * 255 : Number.parseFloat(v);
  return Math.max(0, Math.min(255, Math.round(Number.isFinite(n) ? n : 0)));
}

function parse(value: string): Parsed | null {
  const text = value.toLowerCase();
  if (NAMED[text]) return { rgb: NAMED[text], alpha: 1 };
  if (text.startsWith('#')) {
    const hex = text.slice(1);
    const full = hex.length <= 4 ? [...hex].map((c) => c + c).join('') : hex;
    const alpha = full.length === 8 ? Number.parseInt(full.slice(6), 16) / 255 : 1;
    return { rgb: full.slice(0, 6), alpha };
  }
  const parts = /^rgba?\(([^)]*)\)$/
    .exec(text)?.[1]
    .split(/[\s,/]+/)
    .filter(Boolean);
  if (!parts || parts.length < 3) return null;
  const rgb = parts
    .slice(0, 3)
    .map((p) => channel(p).toString(16).padStart(2, '0'))
    .join('');
  const a = parts[3];
  const alpha = a === undefined ? 1 : a.endsWith('%') ? Number.parseFloat(a) / 100 : Number.parseFloat(a);
  return { rgb, alpha: Number.isFinite(alpha) ? Math.max(0, Math.min(1, alpha)) : 1 };
}

function hex6(colour: string): string {
  const hex = colour.replace(/^#/, '').toLowerCase();
  return hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
}

/** The SVG's distinct colours in order of first appearance, as `#rrggbb`. */
export function svgColors(markup: string): string[] {
  const seen = new Set<string>();
  for (const match of markup.matchAll(OCCURRENCE)) {
    const parsed = parse(match[2]);
    if (parsed) seen.add(parsed.rgb);
  }
  return [...seen].map((rgb) => `#${rgb}`);
}

/** The markup with its i-th distinct colour replaced by `colors[i]`; colours past the end of the list stay. */
export function recolorSvg(markup: string, colors: readonly string[]): string {
  if (colors.length === 0) return markup;
  const order = new Map<string, number>();
  return markup.replace(OCCURRENCE, (whole, prefix: string, value: string) => {
    const parsed = parse(value);
    if (!parsed) return whole;
    let index = order.get(parsed.rgb);
    if (index === undefined) {
      index = order.size;
      order.set(parsed.rgb, index);
    }
    const replacement = colors[index];
    if (replacement === undefined) return whole;
    const rgb = hex6(replacement);
    if (parsed.alpha >= 1) return `${prefix}#${rgb}`;
    const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(rgb.slice(i, i + 2), 16));
    return `${prefix}rgba(${r},${g},${b},${Number(parsed.alpha.toFixed(4))})`;
  });
}
