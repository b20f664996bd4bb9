// Row types of every table, as Kysely sees them. Timestamps are ISO 8601 UTC strings with milliseconds on both
// SQLite and PostgreSQL (they sort as text), booleans are 0/1 integers, JSON is text.
import type { ColumnType, Generated } from 'kysely';

export interface TeamsTable {
  id: Generated<number>;
  name: string;
  created_at: string;
}

export interface UsersTable {
  id: Generated<number>;
  team_id: number;
  name: string;
  email: string;
  role_id: number;
  profile_picture: string | null;
  created_at: string;
  updated_at: string;
  /** Users are kept after deletion so that "created by" still has a name; their credentials are deleted. */
  deleted_at: string | null;
}

export interface ApiCredentialsTable {
  id: Generated<number>;
  client_id: string;
  team_id: number;
  user_id: number;
  name: string;
  secret_hash: string;
  created_by: number | null;
  created_at: string;
  last_used_at: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface Database {
  teams: TeamsTable;
  users: UsersTable;
  api_credentials: ApiCredentialsTable;
}
