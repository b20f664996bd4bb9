// Design versions in the editor (issue 19, "Save safely"): the saved versions, newest first (GET /v1/designVersion),
// keeping the current content as a named version (POST), a preview of one (GET /v1/designVersion/document, drawn on
// the canvas, read-only) and restoring it (POST /v1/designVersion/restore: the server first keeps the current content
// as an automatic version, so a restore can be undone by restoring that one).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';
import type { EditorDocument } from './document';

export interface Version {
  id: string;
  versionName: string;
  lastModified: string;
  lastModifiedByName: string;
}

export function VersionsPanel({
  hash,
  editable,
  dirty,
  previewing,
  onPreview,
  onRestored,
}: {
  hash: string;
  editable: boolean;
  /** Unsaved changes: a restore would replace them, so the panel asks first. */
  dirty: boolean;
  previewing: string | null;
  onPreview(version: Version | null, doc: EditorDocument | null): void;
  onRestored(version: Version): Promise<void>;
}) {
  const client = useQueryClient();
  // Listed when the panel is opened, so opening a design makes no request for it (issue 19: time to an editable
  // canvas).
  const [open, setOpen] = useState(false);
  const versions = useQuery({
    queryKey: ['versions', hash],
    queryFn: () => api<{ response: Version[] }>('GET', `/v1/designVersion?hash=${encodeURIComponent(hash)}`),
    enabled: open,
  });
  const [name, setName] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const create = useMutation({
    mutationFn: (versionName: string) => api('POST', '/v1/designVersion', { hash, versionName }),
    onSuccess: (_body, versionName) => {
      setName('');
      setMessage({ ok: true, text: `Kept the saved design as “${versionName}”.` });
      client.invalidateQueries({ queryKey: ['versions', hash] });
    },
    onError: (e) => setMessage({ ok: false, text: e.message }), // the name typed stays in its field
  });
  const onCreate = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim()) create.mutate(name.trim());
  };
  const preview = async (version: Version) => {
    setMessage(null);
    try {
      const body = await api<{ response: EditorDocument }>(
        'GET',
        `/v1/designVersion/document?hash=${encodeURIComponent(hash)}&versionId=${encodeURIComponent(version.id)}`,
      );
      onPreview(version, body.response);
    } catch (e) {
      setMessage({ ok: false, text: (e as Error).message });
    }
  };
  const restore = async (version: Version) => {
    if (dirty && !window.confirm(`Restore “${version.versionName}”? Your unsaved changes will be replaced.`)) return;
    setMessage(null);
    try {
      await api('POST', '/v1/designVersion/restore', { hash, versionId: version.id });
      await onRestored(version);
      setMessage({ ok: true, text: `Restored “${version.versionName}”.` });
      client.invalidateQueries({ queryKey: ['versions', hash] });
    } catch (e) {
      setMessage({ ok: false, text: (e as Error).message });
    }
  };
  return (
    <section aria-labelledby="versions-title" className="versions">
      <h2 id="versions-title">
        <button type="button" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          Versions
        </button>
      </h2>
      {open && editable && (
        <form onSubmit={onCreate} aria-label="Keep a version">
          <label>
            Version name
            <input value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
          </label>
          <button type="submit" disabled={create.isPending}>
            Keep version
          </button>
        </form>
      )}
      {message && <p role={message.ok ? 'status' : 'alert'}>{message.text}</p>}
      {open && versions.isError && <p role="alert">{versions.error.message}</p>}
      {open && versions.data?.response.length === 0 && <p>No versions yet.</p>}
      <ul aria-label="Design versions" hidden={!open}>
        {versions.data?.response.map((v) => (
          <li key={v.id} aria-label={v.versionName}>
            <strong>{v.versionName}</strong>{' '}
            <small>
              {new Date(v.lastModified).toLocaleString()} · {v.lastModifiedByName}
            </small>{' '}
            {previewing === v.id ? (
              <button type="button" aria-label={`Close the preview of ${v.versionName}`} onClick={() => onPreview(null, null)}>
                Close preview
              </button>
            ) : (
              <button type="button" aria-label={`Preview ${v.versionName}`} onClick={() => preview(v)}>
                Preview
              </button>
            )}
            {editable && (
              <button type="button" aria-label={`Restore ${v.versionName}`} onClick={() => restore(v)}>
                Restore
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
