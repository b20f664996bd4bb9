import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { navigate } from '../router';
import { type SessionBody, useSignedIn } from '../session';

export function Invite({ token }: { token: string }) {
  const signedIn = useSignedIn();
  const info = useQuery({
    queryKey: ['invite', token],
    queryFn: () => api<{ response: { email: string; name: string } }>('GET', `/v1/auth/invite/${encodeURIComponent(token)}`),
    retry: false,
  });
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (password !== repeat) return setError('The two passwords differ.');
    setError(null);
    try {
      const body = await api<SessionBody>('POST', '/v1/auth/invite/accept', { token, password });
      // The invite token leaves the address bar and the history at once.
      window.history.replaceState(null, '', '/app/designs');
      navigate('/app/designs');
      signedIn(body);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  if (info.isPending) return <p role="status">Checking the invite…</p>;
  if (info.isError) {
    return (
      <main className="auth">
        <h1>Invite</h1>
        <p role="alert">{info.error.message}</p>
      </main>
    );
  }
  return (
    <main className="auth">
      <h1>Welcome, {info.data.response.name}</h1>
      <p>Choose a password for {info.data.response.email} (at least 10 characters).</p>
      <form onSubmit={submit} aria-label="Set your password">
        <label>
          New password
          <input type="password" autoComplete="new-password" minLength={10} required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <label>
          Repeat the password
          <input type="password" autoComplete="new-password" minLength={10} required value={repeat} onChange={(e) => setRepeat(e.target.value)} />
        </label>
        {error && <p role="alert">{error}</p>}
        <button type="submit">Set password and sign in</button>
        <button type="button" onClick={() => navigate('/')}>
          Back to sign in
        </button>
      </form>
    </main>
  );
}
