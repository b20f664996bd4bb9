// Demo data for a first start on an empty database (SPEC §12): a team with its Owner and an API credential (printed
// once and written to <data dir>/demo-credentials.json), a brand kit, a project and the demo designs. The content is
// created through the API itself (app.inject with the demo credential), so it passes every rule a user's would.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { App } from '../http/types.js';
import { createTeamService } from '../services/team.service.js';
import type { Db } from '../storage/db/database.js';
import { createTeamRepository } from '../storage/db/repositories/teams.repository.js';
import { DEMO_DESIGNS } from './demo-designs.js';

export interface DemoResult {
  teamId: number;
  userId: number;
  clientId: string;
  clientSecret: string;
  /** The demo Owner's studio sign-in. */
  email: string;
  password: string;
  file: string;
  projectId: number;
  designHashes: string[];
}

async function call(app: App, token: string | null, method: 'POST', url: string, payload: unknown) {
  const res = await app.inject({
    method,
    url,
    payload: payload as object,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (res.statusCode !== 200) throw new Error(`demo data: ${method} ${url} answered ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** Creates the demo data when the database has no team yet; returns null when there was something already. */
export async function seedDemoIfEmpty(app: App, db: Db, dataDir: string): Promise<DemoResult | null> {
  if ((await createTeamRepository(db.kysely).count()) > 0) return null;
  const team = await createTeamService(db.kysely).createTeam({
    name: 'Demo team',
    ownerEmail: 'owner@demo.local',
    ownerName: 'Demo Owner',
  });
  const { token } = await call(app, null, 'POST', '/v1/auth/token', {
    clientId: team.clientId,
    clientSecret: team.clientSecret,
  });
  const kit = await call(app, token, 'POST', '/v1/brandkits/create', { name: 'Demo brand' });
  const project = await call(app, token, 'POST', '/v1/projects', {
    name: 'Spring campaign',
    brandKitId: kit.response.brandKit.id,
  });
  const projectId: number = project.response.project.id;
  const designHashes: string[] = [];
  for (const design of DEMO_DESIGNS) {
    const imported = await call(app, token, 'POST', '/v1/templates/import', {
      projectId,
      name: design.name,
      isTemplate: true,
      document: design.document,
    });
    designHashes.push(imported.response.template.id);
  }

  // The studio sign-in of the demo Owner: random, printed once and kept only in the credentials file.
  const email = 'owner@demo.local';
  const password = randomBytes(12).toString('base64url');
  await app.sessions.setPassword(team.userId, password);

  const file = path.join(dataDir, 'demo-credentials.json');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(
    file,
    `${JSON.stringify({ email, password, clientId: team.clientId, clientSecret: team.clientSecret }, null, 2)}\n`,
    {
      mode: 0o600,
    },
  );
  return { ...team, email, password, file, projectId, designHashes };
}
