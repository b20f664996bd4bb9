// A new design from scratch (one empty size from the standard sizes list) or from a team template (its document
// copied), in a project; then the editor opens on it.
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { STANDARD_SIZES } from '../../../src/domain/standard-sizes';
import { api } from '../api';
import { navigate } from '../router';

export default function NewDesign() {
  const projects = useQuery({
    queryKey: ['projects'],
    queryFn: () => api<{ response: { nodes: { id: number; name: string }[] } }>('GET', '/v1/projects?limit=100'),
  });
  const templates = useQuery({
    queryKey: ['team-templates'],
    queryFn: () =>
      api<{ response: { nodes: { id: string; name: string }[] } }>('GET', '/v1/templates?onlyTemplates=true&limit=100'),
  });
  const [projectId, setProjectId] = useState('');
  const [name, setName] = useState('');
  const [start, setStart] = useState('size:0');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const project = projectId || String(projects.data?.response.nodes[0]?.id ?? '');

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      let document: Record<string, unknown>;
      if (start.startsWith('template:')) {
        const from = await api<{ response: Record<string, unknown> }>(
          'GET',
          `/v1/templates/${encodeURIComponent(start.slice('template:'.length))}/document`,
        );
        const { sizes, ...rest } = from.response as { sizes: Record<string, unknown>[] };
        document = { ...rest, name, sizes: sizes.map(({ hash: _hash, ...size }) => size) };
      } else {
        const size = STANDARD_SIZES[Number(start.slice('size:'.length))];
        document = {
          name,
          sizes: [{ name: size.name, width: size.width, height: size.height, slides: [{ elements: [] }] }],
        };
      }
      const created = await api<{ response: { template: { id: string } } }>('POST', '/v1/templates/import', {
        projectId: Number(project),
        name,
        document,
      });
      navigate(`/app/designs/${created.response.template.id}/edit`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="new-title">
      <h1 id="new-title">New design</h1>
      <form onSubmit={create} className="new-design">
        <label>
          Project
          <select value={project} onChange={(e) => setProjectId(e.target.value)}>
            {projects.data?.response.nodes.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Design name
          <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Start from
          <select value={start} onChange={(e) => setStart(e.target.value)}>
            <optgroup label="Blank, standard size">
              {STANDARD_SIZES.map((s, i) => (
                <option key={`${s.width}x${s.height}`} value={`size:${i}`}>
                  {s.name} ({s.width}x{s.height})
                </option>
              ))}
            </optgroup>
            {(templates.data?.response.nodes.length ?? 0) > 0 && (
              <optgroup label="Team templates">
                {templates.data?.response.nodes.map((t) => (
                  <option key={t.id} value={`template:${t.id}`}>
                    {t.name}
                  </option>
                ))}
              </optgroup>
            )}
          </select>
        </label>
        {error && <p role="alert">{error}</p>}
        <button type="submit" disabled={busy || !project}>
          Create and edit
        </button>
      </form>
    </section>
  );
}
