// `npm run client:generate`: rewrites the client's generated types (packages/client/src/openapi.ts) from the service's
// current schemas, then rebuilds the package. Run it after adding or changing a route.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLIENT_DIR, fetchOpenApiDocument, OPENAPI_TYPES, renderClientTypes } from './client-openapi.js';

fs.writeFileSync(OPENAPI_TYPES, await renderClientTypes(await fetchOpenApiDocument()));
console.log(`wrote ${path.relative(process.cwd(), OPENAPI_TYPES)}`);
execFileSync('npm', ['run', 'build', '--silent'], { cwd: CLIENT_DIR, stdio: 'inherit' });
