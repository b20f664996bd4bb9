// Manage what the designs grid shows (issue 18): a card's sizes, rename and delete a design, rename and delete a
// folder, create a project. Kept apart from Designs.tsx so the grid itself stays small; the API enforces the roles
// (these controls are only rendered for Editors and above) and its sentence is shown when it refuses.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';

interface Size {
  hash: string;
  width: number;
  height: number;
}

/** The sizes of a design (a design set has several), as the card's caption. */
export function CardSizes({ designId, name }: { designId: string; name: string }) {
  const sizes = useQuery({
    queryKey: ['sizes', designId],
    queryFn: () => api<{ response: Size[] }>('GET', `/v1/templates/${designId}/design-sizes`),
    staleTime: 60_000,
  });
  const list = sizes.data?.response ?? [];
  if (list.length === 0) return null;
  return (
    <p aria-label={`Sizes of ${name}`} className="sizes">
      {list.length > 1 ? `Set of ${list.length}: ` : ''}
      {list.map((s) => `${s.width}×${s.height}`).join(', ')}
    </p>
  );
}

function Rename({
  label,
  current,
  onRename,
}: {
  label: string;
  current: string;
  onRename: (name: string) => Promise<unknown>;
}) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(current);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!open) {
    return (
      <button type="button" aria-label={`Rename ${label}`} onClick={() => setOpen(true)}>
        Rename
      </button>
    );
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError('The name must not be empty.');
    setBusy(true);
    try {
      await onRename(name.trim());
      setOpen(false);
      setError(null);
    } catch (e) {
      setError((e as Error).message); // what was typed stays in the field
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-label={`Rename ${label}`}>
      <label>
        New name for {label}
        <input value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Save name
      </button>
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {error && <p role="alert">{error}</p>}
    </form>
  );
}

export function DesignManage({ design }: { design: { id: string; name: string } }) {
  const client = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: () => api('DELETE', '/v1/templates', { hash: design.id }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['designs'] }),
    onError: (e) => setError(e.message),
  });
  return (
    <>
      <Rename
        label={design.name}
        current={design.name}
        onRename={async (name) => {
          await api('PUT', '/v1/templates', { hash: design.id, name });
          await client.invalidateQueries({ queryKey: ['designs'] });
        }}
      />
      <button
        type="button"
        aria-label={`Delete ${design.name}`}
        disabled={remove.isPending}
        onClick={() => window.confirm(`Delete the design ${design.name}?`) && remove.mutate()}
      >
        Delete
      </button>
      {error && <p role="alert">{error}</p>}
    </>
  );
}

export function FolderManage({ folder, onDeleted }: { folder: { id: number; name: string }; onDeleted: () => void }) {
  const client = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const remove = useMutation({
    mutationFn: () => api('DELETE', '/v1/folders', { folderId: folder.id }),
    onSuccess: () => {
      onDeleted();
      client.invalidateQueries({ queryKey: ['folders'] });
      client.invalidateQueries({ queryKey: ['designs'] });
    },
    onError: (e) => setError(e.message),
  });
  return (
    <div className="folder-actions">
      <Rename
        label={`folder ${folder.name}`}
        current={folder.name}
        onRename={async (name) => {
          await api('PUT', '/v1/folders', { folderId: folder.id, name });
          await client.invalidateQueries({ queryKey: ['folders'] });
        }}
      />
      <button
        type="button"
        aria-label={`Delete folder ${folder.name}`}
        disabled={remove.isPending}
        onClick={() => window.confirm(`Delete the folder ${folder.name}?`) && remove.mutate()}
      >
        Delete folder
      </button>
      {error && <p role="alert">{error}</p>}
    </div>
  );
}

export function NewProject({ onCreated }: { onCreated: (id: number) => void }) {
  const client = useQueryClient();
  const kits = useQuery({
    queryKey: ['brandkits'],
    queryFn: () => api<{ response: { nodes: { id: number; name: string }[] } }>('GET', '/v1/brandkits?limit=100'),
  });
  const [name, setName] = useState('');
  const [kitId, setKitId] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const brandKitId = kitId ?? kits.data?.response.nodes[0]?.id ?? null;
  const create = useMutation({
    mutationFn: () =>
      api<{ response: { project: { id: number } } }>('POST', '/v1/projects', { name: name.trim(), brandKitId }),
    onSuccess: async (body) => {
      setName('');
      setError(null);
      await client.invalidateQueries({ queryKey: ['projects'] });
      onCreated(body.response.project.id);
    },
    onError: (e) => setError(e.message),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError('The project name must not be empty.');
    if (brandKitId === null) return setError('A project needs a brand kit: create one on the Brand kits page first.');
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="New project">
      <label>
        New project name
        <input value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Brand kit of the new project
        <select value={brandKitId ?? ''} onChange={(e) => setKitId(Number(e.target.value))}>
          {kits.data?.response.nodes.map((k) => (
            <option key={k.id} value={k.id}>
              {k.name}
            </option>
          ))}
        </select>
      </label>
      {/* Until the brand kits are known a submit would say there is none (a quick user, or a test, met that). */}
      <button type="submit" disabled={create.isPending || kits.isPending}>
        Create project
      </button>
      {error && <p role="alert">{error}</p>}
    </form>
  );
}
