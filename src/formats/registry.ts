// The only place that branches on the export type (ARCHITECTURE formats/): adding a format is one folder and one line
// in FORMATS. Everything else — the export request schema and the OpenAPI document, the export service's checks and
// defaults, the file plan, the processor's content types and budgets, the render worker, `placard render` — asks here.
import { type Static, type TSchema, Type } from 'typebox';
import { avif } from './avif/index.js';
import { gif } from './gif/index.js';
import { html } from './html5/index.js';
import { mp4 } from './mp4/index.js';
import type { FormatJob, OutputFormat, PreflightMode } from './output-format.js';
import { pdf } from './pdf/index.js';
import { jpg, png, webp } from './raster/index.js';

export const FORMATS = [png, jpg, webp, avif, pdf, gif, mp4, html] as const;

type AnyFormat = (typeof FORMATS)[number];
export type FormatType = AnyFormat['type'];

/** The resolved settings of a format (what `defaults` returns, stored with the export). */
export type SettingsOf<T extends FormatType> = ReturnType<Extract<AnyFormat, { type: T }>['defaults']>;

/** A render job: one variant per format, each with its own settings (no bag of optional fields). */
export type RenderJob = { [T in FormatType]: FormatJob<T, SettingsOf<T>> }[FormatType];

const byName = new Map<string, AnyFormat>();
for (const format of FORMATS) for (const name of [format.type, ...format.aliases]) byName.set(name, format);

/** Every name a request may give, aliases included, in registry order. */
export const EXPORT_TYPES: readonly string[] = [...byName.keys()];

/** The format a type names (any letter case, aliases included), or undefined. */
export function findFormat(type: string): OutputFormat<FormatType, never, unknown> | undefined {
  return byName.get(type.toLowerCase()) as OutputFormat<FormatType, never, unknown> | undefined;
}

/** As findFormat, for a type that was validated (or stored) already. */
export function formatOf(type: string): OutputFormat<FormatType, never, unknown> {
  const format = findFormat(type);
  if (!format) throw new Error(`no output format is registered for type ${JSON.stringify(type)}`);
  return format;
}

/** `PNG` → png, `jpeg` → jpg, `HTML5` → html; an unknown type lower-cased. */
export function normaliseType(type: string): string {
  return findFormat(type)?.type ?? type.toLowerCase();
}

/** Renders a job with its format (the worker's and the CLI's one call). */
export function renderJob(job: RenderJob, context: Parameters<AnyFormat['render']>[1]) {
  return (formatOf(job.format).render as (job: RenderJob, context: unknown) => ReturnType<AnyFormat['render']>)(
    job,
    context,
  );
}

type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;

/**
 * Settings every format has, composed into the export request once (not by each format): what preflight does with the
 * file (issue 20, docs/preflight.md).
 */
export const SHARED_SETTINGS = Type.Object({
  preflight: Type.Optional(
    Type.Enum(['off', 'warn', 'fail'], {
      description:
        'Every type: off (no checks), warn (default: each creative lists its findings), fail (a file with an error finding is not made; it fails with PREFLIGHT_FAILED)',
    }),
  ),
});

/** The shared settings with their defaults, stored with the export beside the format's own. */
export function sharedDefaults(given: { preflight?: PreflightMode }): { preflight: PreflightMode } {
  return { preflight: given.preflight ?? 'warn' };
}

/** Every format's settings properties, one schema per name: a name shared by formats (quality, scale) is described once
 * per format and must have the same rule in each. */
function composeSettings(): Record<string, TSchema> {
  const properties: Record<string, TSchema> = { ...(SHARED_SETTINGS.properties as Record<string, TSchema>) };
  for (const format of FORMATS) {
    for (const [name, schema] of Object.entries(format.settings.properties as Record<string, TSchema>)) {
      const known = properties[name];
      if (!known) {
        properties[name] = schema;
        continue;
      }
      const { description: a, ...ruleA } = known as { description?: string };
      const { description: b, ...ruleB } = schema as { description?: string };
      if (JSON.stringify(ruleA) !== JSON.stringify(ruleB)) {
        throw new Error(`exportSettings.${name} has different rules in two formats; give one of them another name`);
      }
      // Rebuilt as Optional: the spread loses TypeBox's optional marker, and every setting may be left out.
      properties[name] = Type.Optional({ ...known, description: [a, b].filter(Boolean).join('; ') } as TSchema);
    }
  }
  return properties;
}

/** The settings of every format, for the export request schema (http/schemas/exports.ts) and the OpenAPI document. */
export const FORMAT_SETTINGS_PROPERTIES = composeSettings();

/** Any format's settings, as a request may give them. */
export type AnyFormatSettings = Partial<UnionToIntersection<Static<AnyFormat['settings']>>> &
  Static<typeof SHARED_SETTINGS>;

/** The exportSettings schema of one format alone (the CLI validates its flags with it). */
export function settingsSchemaOf(type: string) {
  return formatOf(type).settings as unknown as ReturnType<typeof Type.Object>;
}
