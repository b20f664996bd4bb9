import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api';

interface TeamUser {
  id: number;
  name: string;
  email: string;
  role: { id: number; name: string };
}

const ROLES = [
  { id: 1, name: 'Owner' },
  { id: 2, name: 'Admin' },
  { id: 3, name: 'Editor' },
  { id: 4, name: 'Viewer' },
] as const;

export function Team() {
  const client = useQueryClient();
  const users = useQuery({
    queryKey: ['users'],
    queryFn: () => api<{ response: { nodes: TeamUser[] } }>('GET', '/v1/users?limit=100'),
  });
  const [links, setLinks] = useState<Record<number, string>>({});
  const [error, setError] = useState<string | null>(null);
  const invite = async (user: TeamUser) => {
    try {
      const body = await api<{ inviteUrl: string }>('POST', '/v1/users/invite', { userId: user.id });
      setLinks((l) => ({ ...l, [user.id]: body.inviteUrl }));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  // Role changes and deletions go through the API, which enforces who may do what (an Admin cannot make an Owner…)
  // and revokes the user's sessions; the page shows its sentence when it refuses.
  const changeRole = async (user: TeamUser, roleId: number) => {
    try {
      await api('PUT', '/v1/users/updateTeamUserRole', { userId: user.id, roleId });
      setError(null);
    } catch (e) {
      setError((e as Error).message);
    }
    client.invalidateQueries({ queryKey: ['users'] });
  };
  const remove = async (user: TeamUser) => {
    if (!window.confirm(`Delete ${user.name} (${user.email}) from the team?`)) return;
    try {
      await api('DELETE', '/v1/users', { email: user.email });
      setError(null);
      client.invalidateQueries({ queryKey: ['users'] });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section aria-labelledby="team-title">
      <h1 id="team-title">Team</h1>
      {error && <p role="alert">{error}</p>}
      {users.isError && <p role="alert">{users.error.message}</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Sign-in</th>
          </tr>
        </thead>
        <tbody>
          {users.data?.response.nodes.map((user) => (
            <tr key={user.id}>
              <td>{user.name}</td>
              <td>{user.email}</td>
              <td>
                <label>
                  <span className="visually-hidden">Role of {user.name}</span>
                  <select value={user.role.id} onChange={(e) => changeRole(user, Number(e.target.value))}>
                    {ROLES.map((r) => (
                      <option key={r.id} value={r.id}>
                        {r.name}
                      </option>
                    ))}
                  </select>
                </label>
              </td>
              <td>
                <button type="button" onClick={() => invite(user)}>
                  Invite {user.name}
                </button>
                <button type="button" onClick={() => remove(user)}>
                  Delete {user.name}
                </button>
                {links[user.id] && (
                  <label>
                    Invite link for {user.name}
                    <input readOnly value={links[user.id]} onFocus={(e) => e.target.select()} />
                  </label>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
