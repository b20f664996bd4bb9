// Every failure leaves as the error envelope of SPEC §3. Errors of our own (AppError) keep their code; Fastify's
// own errors are mapped to catalogue codes; anything else is a bug: 500 INTERNAL, details only in the log.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { describeValidation } from '../../domain/json-pointer.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import type { App } from '../types.js';

function fromFastify(error: FastifyError, bodyLimit = 1024 * 1024): AppError | null {
  if (error.validation) {
    const { message, details } = describeValidation(error.validation as never, error.validationContext ?? 'body');
    return new AppError('VALIDATION_FAILED', message, { details });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'the body must be JSON sent with Content-Type: application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(
        'PAYLOAD_TOO_LARGE',
        `the body is larger than the ${bodyLimit % (1024 * 1024) === 0 ? `${bodyLimit / 1024 / 1024} MiB` : `${bodyLimit} bytes`} limit`,
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(
        'INVALID_JSON',
        'the body is empty but Content-Type says application/json; send a JSON object',
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('INVALID_JSON', `the body is not valid JSON: ${error.message}`);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_FAILED', 'the Content-Length header does not match the body');
  }
  // Fastify's JSON body parser throws a SyntaxError marked 400. A SyntaxError without that mark was thrown by our own
  // code (a bug, e.g. JSON.parse of stored data), not by the client's body: it must stay a 500.
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new AppError('INVALID_JSON', `the body is not valid JSON: ${error.message}`);
  }
  // Any other client error Fastify itself raises (bad URL, bad header) is the client's; ours are AppErrors.
  if (error.code?.startsWith('FST_') && error.statusCode !== undefined && error.statusCode < 500) {
    return new AppError('VALIDATION_FAILED', error.message);
  }
  return null;
}

/** A URL quoted in a message: a 10,000-character path must not come back whole. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} characters)` : text;
}

/** Fastify's errors raised before routing (a URL it cannot decode) bypass the error handler; same envelope here. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply
    .code(400)
    .header('X-Request-Id', request.id)
    .send({
      error: `the request URL cannot be decoded: ${clip(error.message)}`,
      code: 'VALIDATION_FAILED',
      requestId: request.id,
    });
}

/**
 * Errors Node's HTTP parser raises before there is a request (a 1 MB query string overflows the 16 KiB header
 * limit): Fastify's default answers them in its own shape; ours carry the envelope and a request id like any other.
 */
export function clientErrors(error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'REQUEST_TOO_LARGE', 'the URL or headers are larger than 16 KiB']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'REQUEST_TIMEOUT', 'the request was not received in time']
        : [400, 'Bad Request', 'VALIDATION_FAILED', 'the request is not valid HTTP'];
  const requestId = randomUUID();
  const body = JSON.stringify({ error: message, code, requestId });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-Id: ${requestId}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function errorHandlerPlugin(app: App, options: { allowedMethods?: (path: string) => string[] } = {}) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = error instanceof AppError ? error : fromFastify(error, request.routeOptions?.bodyLimit);
    if (!known) {
      request.log.error({ err: error }, 'unhandled error');
      return reply.code(500).send({
        error: 'internal error; the log has the details under this request id',
        code: 'INTERNAL',
        requestId: request.id,
      });
    }
    if (known.status >= 500) request.log.error({ err: error }, known.message);
    for (const [name, value] of Object.entries(known.headers ?? {})) reply.header(name, value);
    const body: { error: string; code: string; details?: ErrorDetail[]; requestId: string } = {
      error: known.message,
      code: known.code,
      requestId: request.id,
    };
    if (known.details) body.details = known.details;
    return reply.code(known.status).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = options.allowedMethods?.(path) ?? [];
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('Allow', allowed.join(', '))
        .send({
          error: `${request.method} is not served at ${clip(path)}; it serves ${allowed.join(', ')}`,
          code: 'METHOD_NOT_ALLOWED',
          requestId: request.id,
        });
    }
    return reply
      .code(404)
      .send({ error: `no route ${request.method} ${clip(path)}`, code: 'NOT_FOUND', requestId: request.id });
  });
}
