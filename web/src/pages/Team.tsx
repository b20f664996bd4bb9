import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api';

interface TeamUser {
  id: number;
  name: string;
  email: string;
  role: { id: number; name: string };
}

export function Team() {
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
              <td>{user.role.name}</td>
              <td>
                <button type="button" onClick={() => invite(user)}>
                  Invite {user.name}
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
