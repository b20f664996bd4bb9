// What preflight reports (issue 20): one finding per problem a variant would have, with a stable code, a severity, the
// size and element it is about, a sentence for people and the measured numbers for programs. The catalogue below is
// the one list of codes: the response schema, docs/preflight.md and the CLI's table all read it.
import { type Static, Type } from 'typebox';

export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Every finding code, its severity and what it means. */
export const FINDING_CATALOGUE = {
  TEXT_OVERFLOW: {
    severity: 'error',
    description:
      'Text does not fit its box and is neither shrunk to fit (autoFit) nor ellipsised: it crosses the box edge, or is cut off when overflow is hidden.',
  },
  TEXT_SHRUNK: {
    severity: 'warning',
    description:
      "autoFit shrink had to go below the readable floor (9 output px: 9 px at scale 1), or the text does not fit even at the element's minFontSize.",
  },
  TEXT_TRUNCATED: { severity: 'warning', description: 'The ellipsis cut the text: some of it is not shown.' },
  MISSING_GLYPHS: {
    severity: 'error',
    description:
      'Characters that no font of the chain (the family, then the Noto fallbacks) can draw: they draw as the missing-glyph box.',
  },
  FONT_FALLBACK: {
    severity: 'info',
    description: "Characters the element's font lacks, drawn by a fallback font of the chain.",
  },
  LOW_RESOLUTION_IMAGE: {
    severity: 'warning',
    description:
      'An image or video frame is drawn at more than 1.5 output pixels per pixel of its own at the export scale: it looks blurred.',
  },
  SOURCE_UNREACHABLE: {
    severity: 'error',
    description: 'A media source cannot be fetched (network error, timeout, HTTP error, unknown host).',
  },
  SOURCE_REJECTED: {
    severity: 'error',
    description:
      'A media source was fetched but cannot be used: not media, the wrong kind, too large, a private address.',
  },
  OUTSIDE_CANVAS: {
    severity: 'warning',
    description: 'A visible element lies entirely, or mostly (more than 50% of its area), outside its size.',
  },
  LOW_CONTRAST: {
    severity: 'warning',
    description:
      'Text whose contrast with the pixels drawn behind its glyphs is below WCAG AA: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold).',
  },
  HTML5_WEIGHT: {
    severity: 'warning',
    description:
      "An HTML5 package's estimated weight is over the chosen network's limit: an error where the network refuses heavier packages, a warning where the limit is advice.",
  },
} as const satisfies Record<string, { severity: Severity; description: string }>;

export type FindingCode = keyof typeof FINDING_CATALOGUE;
export const FINDING_CODES = Object.keys(FINDING_CATALOGUE) as FindingCode[];

export const Finding = Type.Object(
  {
    code: Type.Enum(FINDING_CODES, { description: 'Stable identifier of the check (docs/preflight.md)' }),
    severity: Type.Enum([...SEVERITIES], {
      description:
        'error: the file would be wrong (preflight "fail" refuses it); warning: probably wrong; info: advice',
    }),
    sizeHash: Type.String({ description: 'The size, by the hash the template knows it by' }),
    sizeName: Type.String(),
    elementName: Type.Union([Type.String(), Type.Null()], {
      description: 'The element the finding is about; null for findings about the whole size (HTML5_WEIGHT)',
    }),
    slideNumber: Type.Integer({ minimum: 0, description: 'The slide, counting from 0' }),
    message: Type.String({ description: 'A sentence for people: what is wrong, measured, and what to change' }),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The measured numbers, per code (docs/preflight.md lists them)',
    }),
  },
  { additionalProperties: false, description: 'One problem preflight found in a variant' },
);
export type Finding = Static<typeof Finding>;

export const PreflightSummary = Type.Object(
  {
    error: Type.Integer({ minimum: 0 }),
    warning: Type.Integer({ minimum: 0 }),
    info: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false, description: 'Findings counted by severity' },
);
export type PreflightSummary = Static<typeof PreflightSummary>;

export function summarise(findings: readonly Pick<Finding, 'severity'>[]): PreflightSummary {
  const summary: PreflightSummary = { error: 0, warning: 0, info: 0 };
  for (const finding of findings) summary[finding.severity] += 1;
  return summary;
}

/** Errors first, then warnings, then advice; the order they were found in (document order) within each. */
export function sortFindings(findings: Finding[]): Finding[] {
  const rank = (s: Severity) => SEVERITIES.indexOf(s);
  return [...findings].sort((a, b) => rank(a.severity) - rank(b.severity));
}

/** `U+0E01`: how code points appear in messages and details. */
export function codePointLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}
