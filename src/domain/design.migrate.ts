// Older design documents → the current version, run before validation. Every stored document carries `version`;
// one without it predates versioning and is read as version 1 (the format SPEC §5 shows). A document newer than this
// service is refused with a clear error rather than half-understood. To change the format: bump
// CURRENT_DOCUMENT_VERSION and add the step from the previous version to MIGRATIONS.
import { AppError } from '../errors.js';
import { pointerToPath } from './json-pointer.js';

export const CURRENT_DOCUMENT_VERSION = 1;

type RawDocument = Record<string, unknown>;

/** MIGRATIONS[n] turns a version-n document into a version-(n + 1) one. Pure: returns a new object. */
export type MigrationSteps = Readonly<Record<number, (doc: RawDocument) => RawDocument>>;

export const MIGRATIONS: MigrationSteps = {};

/**
 * Brings `raw` to `current` through `steps` (both parameters exist for tests; callers use the defaults). Anything
 * that is not an object is returned as is, so that validation reports it with its path.
 */
export function migrateDocument(
  raw: unknown,
  options: { pointer?: string; current?: number; steps?: MigrationSteps } = {},
): unknown {
  const { pointer = '', current = CURRENT_DOCUMENT_VERSION, steps = MIGRATIONS } = options;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  let doc = raw as RawDocument;
  const stated = doc.version ?? 1;
  const fail = (message: string): never => {
    throw new AppError('VALIDATION_FAILED', `${pointerToPath(`${pointer}/version`)}: ${message}`, {
      details: [{ path: `${pointer}/version`, in: 'body', message }],
    });
  };
  if (typeof stated !== 'number' || !Number.isInteger(stated) || stated < 1) {
    fail(`must be a document version from 1 to ${current}, received ${JSON.stringify(stated)}`);
  }
  let version = stated as number;
  if (version > current) {
    fail(
      `document version ${version} is newer than this service reads (up to ${current}); ` +
        'upgrade Placard or export the document from the service that wrote it in an older version',
    );
  }
  while (version < current) {
    const step = steps[version];
    if (!step) throw new Error(`no migration from design document version ${version} to ${version + 1}`);
    doc = step(doc);
    version += 1;
  }
  return version === doc.version ? doc : { ...doc, version };
}
