// The JSON body parser. It bounds nesting depth BEFORE parsing: a body nested thousands of levels deep parses, but
// then overflows the stack of every recursive walk after it (validation, error messages, logging) and answered a
// bare 500. It also refuses charsets other than UTF-8 (SPEC §1: bodies are UTF-8 JSON): decoding a UTF-16 label as
// UTF-8 would validate something other than what the client meant.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/** Deeper than any real body (a design document with animations is under 10 levels); far below stack trouble. */
export const MAX_JSON_DEPTH = 64;

/**
 * The deepest nesting of `text`, stopping as soon as `limit` is passed. Hand-written, because the point is to look
 * before parsing: a linear scan over brackets outside strings, with no recursion of its own.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match ? match[1].toLowerCase() : null;
}

export function jsonBodyParser(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
      done(
        new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          `the body must be UTF-8 JSON; charset=${charset.slice(0, 40)} is not accepted (send charset=utf-8 or none)`,
        ),
        undefined,
      );
      return;
    }
    if (jsonDepthExceeds(body as string, MAX_JSON_DEPTH)) {
      done(
        new AppError('INVALID_JSON', `the body is nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`),
        undefined,
      );
      return;
    }
    parse(request, body as string, done);
  });
}
