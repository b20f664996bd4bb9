// Request validation with Ajv. Bodies are never coerced (integers arrive as JSON numbers only, SPEC §1); query
// strings and path params are, strictly (`projectId=abc` is still a 400). Unknown body fields are rejected because
// every body schema says additionalProperties: false and nothing is silently removed.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; under ESM its plugin arrives as the `default` of the default export.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

function makeAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    verbose: true,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const paramsAjv = makeAjv('array');

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : paramsAjv;
  return ajv.compile(schema as object);
};

// The wording of validation errors lives below http/ so that domain/ and the CLI share it.
export { describeValidation, pointerToPath } from '../domain/json-pointer.js';
