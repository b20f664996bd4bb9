// Creating teams with their first Owner and credential (admin CLI, demo data, tests).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { OWNER } from '../domain/permissions.js';
import { createCredentialRepository } from '../storage/db/repositories/credentials.repository.js';
import { createTeamRepository } from '../storage/db/repositories/teams.repository.js';
import { createUserRepository } from '../storage/db/repositories/users.repository.js';
import type { Database } from '../storage/db/schema.js';
import { hashSecret, newClientSecret } from './secret-hash.js';

export interface NewTeam {
  teamId: number;
  userId: number;
  clientId: string;
  clientSecret: string;
}

export function createTeamService(db: Kysely<Database>) {
  async function credentialFor(tx: Kysely<Database>, teamId: number, userId: number, name: string) {
    const clientSecret = newClientSecret();
    const row = await createCredentialRepository(tx).insert({
      clientId: randomUUID(),
      teamId,
      userId,
      name,
      secretHash: await hashSecret(clientSecret),
      createdBy: null,
    });
    return { clientId: row.client_id, clientSecret };
  }

  return {
    async createTeam(input: { name: string; ownerEmail: string; ownerName?: string }): Promise<NewTeam> {
      return db.transaction().execute(async (tx) => {
        const team = await createTeamRepository(tx).insert(input.name);
        const owner = await createUserRepository(tx).insert({
          teamId: team.id,
          name: input.ownerName ?? input.ownerEmail.split('@')[0],
          email: input.ownerEmail,
          roleId: OWNER,
        });
        const credential = await credentialFor(tx, team.id, owner.id, 'Owner credential');
        return { teamId: team.id, userId: owner.id, ...credential };
      });
    },

    /** A new credential for the live user with this email; `teamId` picks one when several teams have the email. */
    async createCredentialForEmail(email: string, teamId?: number) {
      const found = (await createUserRepository(db).findEverywhereByEmail(email)).filter(
        (u) => teamId === undefined || u.team_id === teamId,
      );
      if (found.length === 0) throw new Error(`no user has the email ${email}${teamId ? ` in team ${teamId}` : ''}`);
      if (found.length > 1)
        throw new Error(`${found.length} teams have a user with the email ${email}; pass --team-id`);
      const user = found[0];
      return credentialFor(db, user.team_id, user.id, 'CLI credential');
    },
  };
}

export type TeamService = ReturnType<typeof createTeamService>;
