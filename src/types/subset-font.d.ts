// subset-font ships no types; this is the part of its API the HTML5 packager and the brand font reader use.
declare module 'subset-font' {
  export default function subsetFont(
    font: Buffer,
    text: string,
    options?: {
      targetFormat?: 'sfnt' | 'woff' | 'woff2';
      preserveNameIds?: number[];
      /** Keep every glyph (text must then be empty): with variationAxes, a whole static instance. */
      keepAllGlyphs?: boolean;
      /** Axis tag → value to pin (instance) the axis at. */
      variationAxes?: Record<string, number>;
    },
  ): Promise<Buffer>;
}
