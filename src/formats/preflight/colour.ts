// WCAG 2 relative luminance and contrast ratio (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance), on 8-bit sRGB.
export type Rgb = [number, number, number];

const toLinear = (channel: number) => {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
// Preflight converts every glyph pixel: a table of the 256 byte values instead of a power per channel.
const LINEAR = Float64Array.from({ length: 256 }, (_, i) => toLinear(i));
const linear = (channel: number) =>
  Number.isInteger(channel) && channel >= 0 && channel <= 255 ? LINEAR[channel]! : toLinear(channel);

export function relativeLuminance([r, g, b]: Rgb): number {
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** (L1 + 0.05) / (L2 + 0.05), the lighter over the darker: 1 (none) to 21 (black on white). */
export function contrastRatio(a: number, b: number): number {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

export function toHex(rgb: Rgb): string {
  return `#${rgb
    .map((c) =>
      Math.round(Math.min(255, Math.max(0, c)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')
    .toUpperCase()}`;
}
