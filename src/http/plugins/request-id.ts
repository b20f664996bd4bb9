// X-Request-Id (SPEC §1): echoed when the client sends a sane one, generated otherwise; on every response and,
// through Fastify's request logger, in every log line.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { App } from '../types.js';

const SANE = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function genReqId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SANE.test(sent) ? sent : randomUUID();
}

export function requestIdPlugin(app: App) {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
}
