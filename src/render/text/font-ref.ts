// What the renderer needs to know of an element's font: which family and variant it names, and how families are
// looked up. Here, below elements/, so that the text stages of the renderer import nothing from the layer above
// them; element kinds re-export these names for their own use.

/** Looks font families up (the catalogue, or the catalogue plus a team's brand-kit fonts). */
export interface FontLookup {
  /** The family's own spelling and its variants, matching `name` case-insensitively; undefined when unknown. */
  family(name: string): { fontFamily: string; variants: readonly string[] } | undefined;
}

/** The font an element draws its text with. */
export interface FontRef {
  fontFamily: string;
  fontVariant: string;
}

/** The font of text that names none. */
export const DEFAULT_FONT: FontRef = { fontFamily: 'Inter', fontVariant: '400' };
