import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { navigate } from '../router';
import { type SessionBody, useSignedIn } from '../session';

export function SignIn() {
  const signedIn = useSignedIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = await api<SessionBody>('POST', '/v1/auth/login', { email, password });
      if (!window.location.pathname.startsWith('/app')) navigate('/app/designs');
      signedIn(body);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="auth">
      <h1>Sign in to Placard</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label>
          Email
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        {error && <p role="alert">{error}</p>}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
