// The `--changes` file of `placard render`: the `elementsChanges` and `generalChanges` of POST
// /v1/export-with-changes, nothing else. A module of its own so that a render without --changes never builds nor
// compiles the changes schema, which holds every element's changes (issue 21).
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { type Static, Type } from 'typebox';
import { ElementsChanges, GeneralChanges } from '../domain/changes.schema.js';

const ChangesFile = Type.Object(
  { elementsChanges: ElementsChanges, generalChanges: Type.Optional(GeneralChanges) },
  { additionalProperties: false },
);
export type ChangesFile = Static<typeof ChangesFile>;

// The same Ajv settings as request bodies (http/validation.ts), so that messages are the API's.
// ajv-formats is CommonJS; under ESM its plugin arrives as the `default` of the default export (as http/validation.ts).
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;
const ajv = new Ajv({
  coerceTypes: false,
  useDefaults: true,
  allErrors: true,
  verbose: true,
  strict: false,
});
addFormats(ajv);

export const checkChangesFile = ajv.compile<ChangesFile>(ChangesFile);
