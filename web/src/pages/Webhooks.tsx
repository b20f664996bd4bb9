// Webhooks (issue 18, Owners and Admins): the team's webhooks with their actions, create and delete, and the
// deliveries with their attempts and a redeliver button. Lazy-loaded: not part of the first view's bundle.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';

interface Action {
  id: number;
  name: string;
  description: string;
}
interface Webhook {
  id: number;
  name: string;
  webhookUrl: string;
  actions: { action: { name: string } }[];
}
interface Delivery {
  id: string;
  webhookId: number | null;
  action: string;
  url: string;
  status: string;
  attempts: { statusCode: number | null; error: string | null }[];
  createdAt: string;
}

export default function Webhooks() {
  const client = useQueryClient();
  const hooks = useQuery({
    queryKey: ['webhooks'],
    queryFn: () => api<{ response: Webhook[] }>('GET', '/v1/webhooks'),
  });
  const actions = useQuery({
    queryKey: ['webhookActions'],
    queryFn: () => api<{ response: Action[] }>('GET', '/v1/webhookActions'),
  });
  const deliveries = useQuery({
    queryKey: ['deliveries'],
    queryFn: () => api<{ response: { nodes: Delivery[] } }>('GET', '/v1/webhooks/deliveries?limit=50'),
    refetchInterval: (query) => (query.state.data?.response.nodes.some((d) => d.status === 'pending') ? 2000 : false),
  });
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [chosen, setChosen] = useState<number[]>([]);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => {
    setError(null);
    client.invalidateQueries({ queryKey: ['webhooks'] });
    client.invalidateQueries({ queryKey: ['deliveries'] });
  };
  const create = useMutation({
    mutationFn: () => api('POST', '/v1/webhooks', { name: name.trim(), url: url.trim(), actions: chosen }),
    onSuccess: () => {
      setName('');
      setUrl('');
      setChosen([]);
      refresh();
    },
    onError: (e) => setError(e.message),
  });
  const remove = useMutation({
    mutationFn: (webhookId: number) => api('DELETE', '/v1/webhooks', { webhookId }),
    onSuccess: refresh,
    onError: (e) => setError(e.message),
  });
  const redeliver = useMutation({
    mutationFn: (id: string) => api('POST', `/v1/webhooks/deliveries/${id}/redeliver`),
    onSuccess: refresh,
    onError: (e) => setError(e.message),
  });
  const onCreate = (event: FormEvent) => {
    event.preventDefault();
    if (chosen.length === 0) return setError('Choose at least one event for the webhook.');
    create.mutate();
  };
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      {error && <p role="alert">{error}</p>}
      {hooks.isError && <p role="alert">{hooks.error.message}</p>}
      <table aria-label="Webhooks">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {hooks.data?.response.map((h) => (
            <tr key={h.id}>
              <td>{h.name}</td>
              <td>{h.webhookUrl}</td>
              <td>{h.actions.map((a) => a.action.name).join(', ')}</td>
              <td>
                <button
                  type="button"
                  onClick={() => window.confirm(`Delete the webhook ${h.name}?`) && remove.mutate(h.id)}
                >
                  Delete webhook {h.name}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {hooks.data && hooks.data.response.length === 0 && <p>No webhooks yet.</p>}
      <form onSubmit={onCreate} aria-label="New webhook">
        <h2>New webhook</h2>
        <label>
          Webhook name
          <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Webhook URL
          <input required type="url" maxLength={2048} value={url} onChange={(e) => setUrl(e.target.value)} />
        </label>
        <fieldset>
          <legend>Events</legend>
          {actions.data?.response.map((a) => (
            <label key={a.id} title={a.description}>
              <input
                type="checkbox"
                checked={chosen.includes(a.id)}
                onChange={(e) => setChosen((c) => (e.target.checked ? [...c, a.id] : c.filter((x) => x !== a.id)))}
              />
              {a.name}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending}>
          Create webhook
        </button>
      </form>
      <h2 id="deliveries-title">Deliveries</h2>
      {deliveries.isError && <p role="alert">{deliveries.error.message}</p>}
      <table aria-labelledby="deliveries-title">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">URL</th>
            <th scope="col">Status</th>
            <th scope="col">Last attempt</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data?.response.nodes.map((d) => {
            const last = d.attempts.at(-1);
            return (
              <tr key={d.id}>
                <td>{new Date(d.createdAt).toLocaleString()}</td>
                <td>{d.action}</td>
                <td>{d.url}</td>
                <td>{d.status}</td>
                <td>{last ? (last.statusCode ?? last.error ?? '') : 'none yet'}</td>
                <td>
                  <button type="button" onClick={() => redeliver.mutate(d.id)}>
                    Redeliver {d.action} {d.id.slice(0, 8)}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {deliveries.data && deliveries.data.response.nodes.length === 0 && <p>No deliveries yet.</p>}
    </section>
  );
}
