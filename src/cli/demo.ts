// Demo data for a first start on an empty database (SPEC §12): a team, its Owner and an API credential, printed once
// and written to <data dir>/demo-credentials.json. Projects, brand kits and designs join it as their issues land.
import fs from 'node:fs';
import path from 'node:path';
import { createTeamService } from '../services/team.service.js';
import type { Db } from '../storage/db/database.js';
import { createTeamRepository } from '../storage/db/repositories/teams.repository.js';

export interface DemoResult {
  teamId: number;
  userId: number;
  clientId: string;
  clientSecret: string;
  file: string;
}

/** Creates the demo data when the database has no team yet; returns null when there was something already. */
export async function seedDemoIfEmpty(db: Db, dataDir: string): Promise<DemoResult | null> {
  if ((await createTeamRepository(db.kysely).count()) > 0) return null;
  const team = await createTeamService(db.kysely).createTeam({
    name: 'Demo team',
    ownerEmail: 'owner@demo.local',
    ownerName: 'Demo Owner',
  });
  const file = path.join(dataDir, 'demo-credentials.json');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ clientId: team.clientId, clientSecret: team.clientSecret }, null, 2)}\n`, {
    mode: 0o600,
  });
  return { ...team, file };
}
