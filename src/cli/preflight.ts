// `placard preflight` (issue 20): the API's preflight of a design document file, locally and without a server, for a
// design system's CI. The same checks as POST /v1/templates/{hash}/preflight (formats/preflight/variant.ts); the
// findings print as a table (default) or as the API's JSON (`--json`). Exit status: 0 without errors, 1 when a finding
// is an error, 2 for invalid input (with the API's code and message).
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { Ajv } from 'ajv';
import { type Static, Type } from 'typebox';
import type { ElementChangesInput, GeneralChangesInput } from '../domain/changes.js';
import { readDocument } from '../domain/design.schema.js';
import { AppError } from '../errors.js';
import { type Finding, sortFindings } from '../formats/preflight/finding.js';
import { PREFLIGHT_FETCH_TIMEOUT_MS, preflightVariant } from '../formats/preflight/variant.js';
import { ExportType } from '../http/schemas/exports.js';
import { ElementsChanges, GeneralChanges } from '../http/schemas/templates.js';
import { describeValidation } from '../http/validation.js';
import { type AssetFetcher, createAssetFetcher } from '../render/media/assets.js';
import { catalogueFonts } from '../render/text/fonts.js';
import { selectSizes } from './render.js';

export const PREFLIGHT_USAGE = `usage: placard preflight <document.json> [--changes <file>] [--type T] [--scale N]
                         [--size <size hash or WxH>]... [--network N] [--quality N] [--json]

  --changes   a JSON file { "elementsChanges": [...], "generalChanges": {...} } as POST /v1/export-with-changes takes
  --type      the export type to check for: png, jpg, webp, avif (apply --scale), html (adds the package weight), …
  --scale     output pixels per design pixel (raster types); default 1
  --size      a size hash of the document or WxH; repeat for several; default every size
  --network   html: the ad network whose limits apply (GET /v1/adnetworks/forHtml); default 1, IAB
  --quality   html: image quality 1..100; default 80
  --json      print { findings, summary } as the API answers it instead of a table

Exit status: 0 when no finding is an error, 1 when one is, 2 for invalid input (the API's code and message).`;

export interface PreflightCommandOptions {
  allowPrivateUrls?: boolean;
  fetcher?: AssetFetcher;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

const ChangesFile = Type.Object(
  { elementsChanges: ElementsChanges, generalChanges: Type.Optional(GeneralChanges) },
  { additionalProperties: false },
);
type ChangesFile = Static<typeof ChangesFile>;

const ajv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: true, verbose: true, strict: false });
const checkChanges = ajv.compile<ChangesFile>(ChangesFile);
const checkType = ajv.compile<string>(ExportType);

class UsageError extends Error {}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the ${what} ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError('INVALID_JSON', `${file}: the ${what} is not valid JSON: ${(error as Error).message}`);
  }
}

function numberFlag(name: string, value: string | undefined, min: number, max: number, integer: boolean) {
  if (value === undefined) return undefined;
  const n = Number(value);
  const ok = value.trim() !== '' && Number.isFinite(n) && (!integer || Number.isInteger(n)) && n > min && n <= max;
  if (!ok) {
    throw new UsageError(
      `--${name} must be ${integer ? `an integer from ${min + 1} to ${max}` : `a number greater than ${min} and at most ${max}`}, received '${value}'`,
    );
  }
  return n;
}

/** The findings as a table a person reads in a terminal: one line each, the message wrapped under it. */
export function formatTable(findings: Finding[], summary: { error: number; warning: number; info: number }): string {
  const lines: string[] = [];
  const rows = findings.map((f) => [f.severity.toUpperCase(), f.code, f.sizeHash || f.sizeName, f.elementName ?? '—']);
  const headers = ['SEVERITY', 'CODE', 'SIZE', 'ELEMENT'];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const row = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  if (findings.length > 0) {
    lines.push(row(headers));
    findings.forEach((f, i) => {
      lines.push(row(rows[i]!));
      lines.push(`    ${f.message}`);
    });
    lines.push('');
  }
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  lines.push(
    findings.length === 0
      ? 'preflight: no findings'
      : `preflight: ${count(summary.error, 'error')}, ${count(summary.warning, 'warning')}, ${summary.info} info`,
  );
  return `${lines.join('\n')}\n`;
}

/** Runs the command; resolves to the exit status. */
export async function runPreflight(argv: string[], options: PreflightCommandOptions = {}): Promise<number> {
  const stdout = options.stdout ?? ((text) => process.stdout.write(text));
  const stderr = options.stderr ?? ((text) => process.stderr.write(text));
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        changes: { type: 'string' },
        type: { type: 'string' },
        scale: { type: 'string' },
        size: { type: 'string', multiple: true },
        network: { type: 'string' },
        quality: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
    if (positionals.length !== 1) {
      throw new UsageError(
        positionals.length ? `one document at a time, received ${positionals.length}` : 'the document file is missing',
      );
    }
    if (values.type !== undefined && !checkType(values.type)) {
      throw new AppError('VALIDATION_FAILED', `--type: ${describeValidation(checkType.errors ?? [], 'body').message}`);
    }
    const scale = numberFlag('scale', values.scale, 0, 16, false);
    const networkId = numberFlag('network', values.network, 0, 1_000_000, true);
    const quality = numberFlag('quality', values.quality, 0, 100, true);
    const document = readDocument(readJson(positionals[0]!, 'document'));
    let changes: ChangesFile | undefined;
    if (values.changes) {
      const raw = readJson(values.changes, 'changes file');
      if (!checkChanges(raw)) {
        const { message, details } = describeValidation(checkChanges.errors ?? [], 'body');
        throw new AppError('VALIDATION_FAILED', message, { details });
      }
      changes = raw;
    }
    const sizes = selectSizes(document, values.size ?? []);
    const fetcher =
      options.fetcher ??
      createAssetFetcher({
        allowPrivateUrls: options.allowPrivateUrls === true,
        timeoutMs: PREFLIGHT_FETCH_TIMEOUT_MS,
      });
    // Sizes without a hash (a document never imported) are named by their index in `allowedSizeHashesOnly`'s place.
    const hashed = { ...document, sizes: document.sizes.map((s, i) => ({ ...s, hash: s.hash ?? `size-${i}` })) };
    const report = await preflightVariant(
      hashed,
      {
        elementsChanges: changes?.elementsChanges as ElementChangesInput[] | undefined,
        generalChanges: changes?.generalChanges as GeneralChangesInput | undefined,
        type: values.type,
        exportSettings: { scale, networkId, quality },
        allowedSizeHashesOnly: sizes.map((i) => hashed.sizes[i]!.hash),
      },
      { fonts: catalogueFonts, fetcher },
    );
    const findings = sortFindings(report.findings);
    stdout(
      values.json
        ? `${JSON.stringify({ findings, summary: report.summary }, null, 2)}\n`
        : formatTable(findings, report.summary),
    );
    return report.summary.error > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof AppError) {
      stderr(`error ${error.code}: ${error.message}\n`);
      return 2;
    }
    if (error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      stderr(`${(error as Error).message}\n\n${PREFLIGHT_USAGE}\n`);
      return 2;
    }
    throw error;
  }
}
