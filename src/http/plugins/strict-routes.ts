// Two promises every route keeps without declaring them itself:
// - unknown query parameters are refused, as unknown body fields are (`GET /v1/folders?folderId=2` listed the root
//   instead of saying folderId is not a parameter there): every /v1 query schema is closed, and a route without one
//   gets an empty closed one;
// - a known path asked with another method answers 405 with `Allow` (RFC 9110 §15.5.6), not 404.
import type { RouteOptions } from 'fastify';
import type { App } from '../types.js';

interface KnownPath {
  pattern: RegExp;
  methods: Set<string>;
}

function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

export function strictRoutesPlugin(app: App): {
  /** The methods served at this request path, or none when the path is unknown. */
  allowedMethods(path: string): string[];
} {
  const known = new Map<string, KnownPath>();
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const entry = known.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const method of methods) entry.methods.add(method.toUpperCase());
    known.set(route.url, entry);
    if (!route.url.startsWith('/v1/')) return;
    route.schema ??= {};
    const schema = route.schema;
    if (!schema.querystring) {
      schema.querystring = { type: 'object', properties: {}, additionalProperties: false };
    } else {
      const query = schema.querystring as { type?: string; additionalProperties?: unknown };
      if (query.type === 'object' && query.additionalProperties === undefined) {
        // A copy: the TypeBox schema object may be shared with other routes or with the OpenAPI document.
        schema.querystring = { ...query, additionalProperties: false };
      }
    }
  });
  return {
    allowedMethods(path) {
      const allowed = new Set<string>();
      for (const entry of known.values()) {
        if (entry.pattern.test(path)) for (const method of entry.methods) allowed.add(method);
      }
      return [...allowed].sort();
    },
  };
}
