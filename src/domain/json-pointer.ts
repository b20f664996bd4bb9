// JSON pointers and the sentences of validation errors (SPEC §3): one wording for request bodies (http/validation.ts),
// design documents (domain/design.schema.ts), element changes and the CLI. Pure: Ajv's error objects in, details out.
import type { ErrorObject } from 'ajv';
import type { ErrorDetail } from '../errors.js';

const FORMAT_NAMES: Record<string, string> = {
  email: 'an email address',
  uri: 'an absolute URL',
  url: 'an absolute URL',
  uuid: 'a UUID',
  'date-time': 'an ISO 8601 date-time',
  date: 'an ISO 8601 date',
};

const TYPE_NAMES: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean (true or false)',
  object: 'a JSON object',
  array: 'an array',
  null: 'null',
};

/** `/elementsChanges/0/changes/1/value` → `elementsChanges[0].changes[1].value`. */
export function pointerToPath(pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out;
}

/** A short quote of the offending value. It must never throw: it runs while answering another error. */
function received(value: unknown): string {
  let text: string | undefined;
  try {
    text = typeof value === 'string' && value.length > 60 ? JSON.stringify(value.slice(0, 60)) : JSON.stringify(value);
  } catch {
    return '';
  }
  if (text === undefined) return '';
  return `, received ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

function rule(error: ErrorObject): { pointer: string; message: string } {
  const p = error.params as Record<string, unknown>;
  const custom = (error.parentSchema as { 'x-rule'?: string } | undefined)?.['x-rule'];
  switch (error.keyword) {
    case 'required':
      return { pointer: `${error.instancePath}/${p.missingProperty}`, message: 'is required' };
    case 'additionalProperties': {
      const known = Object.keys((error.parentSchema as { properties?: object })?.properties ?? {});
      return {
        pointer: `${error.instancePath}/${p.additionalProperty}`,
        message: `is not a known field${known.length ? ` (known fields: ${known.join(', ')})` : ''}`,
      };
    }
    case 'type':
      return {
        pointer: error.instancePath,
        message: `must be ${TYPE_NAMES[String(p.type)] ?? p.type}${received(error.data)}`,
      };
    case 'enum':
      return {
        pointer: error.instancePath,
        message: `must be one of ${(p.allowedValues as unknown[]).join(', ')}${received(error.data)}`,
      };
    case 'const':
      return {
        pointer: error.instancePath,
        message: `must be ${JSON.stringify(p.allowedValue)}${received(error.data)}`,
      };
    case 'format':
      return {
        pointer: error.instancePath,
        message: `must be ${FORMAT_NAMES[String(p.format)] ?? `a valid ${p.format}`}${received(error.data)}`,
      };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { pointer: error.instancePath, message: `must be ${p.comparison} ${p.limit}${received(error.data)}` };
    case 'minLength':
      return {
        pointer: error.instancePath,
        message: p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters long`,
      };
    case 'maxLength':
      return { pointer: error.instancePath, message: `must be at most ${p.limit} characters long` };
    case 'minItems':
      return { pointer: error.instancePath, message: `must hold at least ${p.limit} item(s)` };
    case 'maxItems':
      return { pointer: error.instancePath, message: `must hold at most ${p.limit} items` };
    case 'uniqueItems':
      return { pointer: error.instancePath, message: 'must not hold the same item twice' };
    case 'pattern':
      return {
        pointer: error.instancePath,
        message: `${custom ?? `must match ${p.pattern}`}${received(error.data)}`,
      };
    default:
      return { pointer: error.instancePath, message: custom ?? error.message ?? 'is invalid' };
  }
}

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'headers' };

/** Ajv errors → the details of a VALIDATION_FAILED error and the one-sentence summary of the first. */
export function describeValidation(
  errors: ErrorObject[],
  httpPart: string,
): { message: string; details: ErrorDetail[] } {
  const part = PART_NAMES[httpPart] ?? httpPart;
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  // anyOf/oneOf report every branch and then a summary; the branch errors are what a person can act on.
  for (const error of errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && e.keyword !== 'if')) {
    const { pointer, message } = rule(error);
    const key = `${pointer} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    details.push({ path: pointer || '/', in: part, message });
    if (details.length === 20) break;
  }
  if (details.length === 0) details.push({ path: '/', in: part, message: 'is invalid' });
  const first = details[0];
  const where = pointerToPath(first.path === '/' ? '' : first.path) || (part === 'body' ? 'body' : `${part} string`);
  const label = part === 'body' || where === 'body' ? where : `${where} (${part})`;
  const more = details.length > 1 ? ` (and ${details.length - 1} more problem(s), see details)` : '';
  return { message: `${label}: ${first.message}${more}`, details };
}
