// The design editor (issue 19), loaded only when a design is opened (App.tsx imports it lazily). The document is the
// single truth: the canvas, the layers and the properties all read it; every edit is a change in its history; saving
// sends it with the revision it was made from, and every change is also kept as a local draft.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { ApiError } from '../api';
import { ExportDialog } from '../pages/ExportDialog';
import { navigate } from '../router';
import { canWrite, type SessionUser } from '../session';
import { ACTIONS, type ActionContext } from './actions';
import { AddElements } from './AddElements';
import { Canvas } from './Canvas';
import { clearDraft, type Draft, readDraft, writeDraft } from './draft';
import { type EditorDocument, elementsOf, findElement, setGeometries, setProperties } from './document';
import { FindingMarks, FindingsList, useDraftFindings } from './findings';
import { historyReducer } from './history';
import { Properties } from './Properties';
import { clickSelection, EMPTY, isAdditive, keepExisting, type Selection } from './selection';
import { SizesPanel } from './SizesPanel';
import { Timeline } from './Timeline';
import { loadDocument, StaleSave, saveDocument } from './server';
import { type Version, VersionsPanel } from './VersionsPanel';

export default function Editor({ hash, user }: { hash: string; user: SessionUser }) {
  const loaded = useQuery({
    queryKey: ['document', hash],
    queryFn: () => loadDocument(hash),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
    retry: 1,
  });
  if (loaded.isPending) return <p role="status">Opening the design…</p>;
  if (loaded.isError) return <p role="alert">{loaded.error.message}</p>;
  return <EditorView hash={hash} user={user} initial={loaded.data} />;
}

function EditorView({
  hash,
  user,
  initial,
}: {
  hash: string;
  user: SessionUser;
  initial: { doc: EditorDocument; revision: number };
}) {
  const client = useQueryClient();
  const editable = canWrite(user);
  const [history, dispatch] = useReducer(historyReducer<EditorDocument>, {
    past: [],
    present: initial.doc,
    future: [],
  });
  const doc = history.present;
  const [saved, setSaved] = useState(initial);
  const [sizeIndex, setSizeIndex] = useState(0);
  const [selection, setSelected] = useState<Selection>(EMPTY);
  const [zoom, setZoom] = useState(1);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [stale, setStale] = useState<StaleSave | null>(null);
  const [saving, setSaving] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [allSizes, setAllSizes] = useState(false);
  // The timeline drives the canvas (Timeline.tsx): keyframes on, handles hidden, until "Back to editing".
  const [motion, setMotion] = useState(false);
  const canvasArea = useRef<HTMLDivElement>(null);
  // A version shown on the canvas instead of the document (read-only) until closed or restored.
  const [preview, setPreview] = useState<{ version: Version; doc: EditorDocument } | null>(null);
  const [offer, setOffer] = useState<Draft | null>(() => {
    const draft = readDraft(hash);
    return draft && JSON.stringify(draft.doc) !== JSON.stringify(initial.doc) ? draft : null;
  });
  const dirty = doc !== saved.doc;

  // Every change is kept locally until it is saved (or the draft is discarded).
  useEffect(() => {
    if (!editable || offer) return;
    if (dirty) writeDraft(hash, { doc, revision: saved.revision, at: new Date().toISOString() });
  }, [doc, dirty, editable, hash, offer, saved.revision]);

  const change = useCallback((next: EditorDocument, key?: string) => dispatch({ type: 'change', next, key }), []);
  const elements = elementsOf(doc, sizeIndex);
  // Names an undo or a delete took away drop out of the selection; the rest stays chosen.
  const selected = keepExisting(selection, elements.map((e) => e.name));
  const selectOne = useCallback((name: string | null) => setSelected(name === null ? EMPTY : [name]), []);
  /** A click in size `i`: a selection belongs to one size, so a click in another size starts a new one. */
  const clicked = (i: number, name: string | null, additive: boolean) =>
    setSelected((current) => clickSelection(i === sizeIndex ? current : EMPTY, name, additive));
  const ctx: ActionContext = {
    doc,
    sizeIndex,
    selected,
    canUndo: history.past.length > 0,
    canRedo: history.future.length > 0,
    change: (next) => change(next),
    undo: () => dispatch({ type: 'undo' }),
    redo: () => dispatch({ type: 'redo' }),
    select: setSelected,
  };
  const ctxRef = useRef(ctx);
  ctxRef.current = ctx;

  useEffect(() => {
    if (!editable) return;
    const onKey = (event: KeyboardEvent) => {
      const field = (event.target as HTMLElement | null)?.closest?.('input, textarea, select, [contenteditable]');
      if (field) return;
      const action = ACTIONS.find((a) => a.shortcut?.(event));
      if (!action || !action.enabled(ctxRef.current)) return;
      event.preventDefault();
      action.perform(ctxRef.current, event);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [editable]);

  const save = async (over?: number) => {
    setSaving(true);
    setError(null);
    setMessage(null);
    try {
      const result = await saveDocument(hash, doc, over ?? saved.revision);
      setSaved({ doc, revision: result.revision });
      setStale(null);
      clearDraft(hash);
      setMessage(`Saved (revision ${result.revision}).`);
      client.invalidateQueries({ queryKey: ['designs'] });
      client.invalidateQueries({ queryKey: ['versions', hash] }); // a save keeps the replaced content as a version
    } catch (e) {
      if (e instanceof StaleSave) setStale(e);
      else setError((e as Error).message);
    } finally {
      setSaving(false);
    }
  };
  const reloadTheirs = async () => {
    try {
      const theirs = await loadDocument(hash);
      setSaved(theirs);
      dispatch({ type: 'reset', present: theirs.doc });
      clearDraft(hash);
      setStale(null);
      setMessage(`Loaded the saved version (revision ${theirs.revision}).`);
    } catch (e) {
      setError((e as ApiError).message);
    }
  };

  const checked = useDraftFindings(doc, sizeIndex);
  const findings = checked.data?.response.findings ?? [];
  const restored = async (version: Version) => {
    const theirs = await loadDocument(hash);
    setSaved(theirs);
    dispatch({ type: 'reset', present: theirs.doc });
    clearDraft(hash);
    setPreview(null);
    setSelected(EMPTY);
    setSizeIndex((i) => Math.min(i, theirs.doc.sizes.length - 1));
    setMessage(`Restored “${version.versionName}” (revision ${theirs.revision}).`);
  };
  const shownDoc = preview?.doc ?? doc;
  const shownSize = Math.min(sizeIndex, shownDoc.sizes.length - 1);

  const element = selected.length === 1 ? findElement(doc, sizeIndex, selected[0]) : undefined;
  const layers = useMemo(() => [...elements].reverse(), [elements]);

  return (
    <section className="editor" aria-labelledby="editor-title">
      <header className="editor-bar">
        <button type="button" onClick={() => navigate('/app/designs')}>
          Back to designs
        </button>
        <h1 id="editor-title">Editing {doc.name}</h1>
        {!editable && <span role="status">View only: your role cannot change designs.</span>}
        {editable && (
          <div role="toolbar" aria-label="Edit">
            {ACTIONS.filter((a) => a.name !== 'nudge' && a.name !== 'deselect').map((action) => (
              <button
                type="button"
                key={action.name}
                disabled={!action.enabled(ctx)}
                aria-keyshortcuts={action.keys}
                title={action.keys}
                onClick={() => action.perform(ctx)}
              >
                {action.label}
              </button>
            ))}
            <button type="button" onClick={() => save()} disabled={saving}>
              {saving ? 'Saving…' : 'Save'}
            </button>
          </div>
        )}
        <button type="button" onClick={() => setExporting(true)}>
          Export
        </button>
        <fieldset className="inline">
          <legend>Sizes shown</legend>
          <label>
            <input type="radio" name="sizes-shown" checked={!allSizes} onChange={() => setAllSizes(false)} />
            One size
          </label>
          <label>
            <input type="radio" name="sizes-shown" checked={allSizes} onChange={() => setAllSizes(true)} />
            All sizes
          </label>
        </fieldset>
        <label>
          Zoom
          <select value={zoom} onChange={(e) => setZoom(Number(e.target.value))}>
            {[0.25, 0.5, 0.75, 1, 1.5, 2].map((z) => (
              <option key={z} value={z}>
                {Math.round(z * 100)}%
              </option>
            ))}
          </select>
        </label>
        {dirty && editable && <span>Unsaved changes</span>}
      </header>
      {message && <p role="status">{message}</p>}
      {error && <p role="alert">{error}</p>}
      {offer && (
        <div role="alertdialog" aria-labelledby="draft-title" className="notice">
          <h2 id="draft-title">Restore your unsaved changes?</h2>
          <p>This browser kept changes to this design from {new Date(offer.at).toLocaleString()} that were not saved.</p>
          <button
            type="button"
            onClick={() => {
              change(offer.doc);
              setOffer(null);
            }}
          >
            Restore draft
          </button>
          <button
            type="button"
            onClick={() => {
              clearDraft(hash);
              setOffer(null);
            }}
          >
            Discard draft
          </button>
        </div>
      )}
      {stale && (
        <div role="alertdialog" aria-labelledby="stale-title" className="notice">
          <h2 id="stale-title">This design changed elsewhere</h2>
          <p>{stale.message}</p>
          <button type="button" onClick={reloadTheirs}>
            Load their version
          </button>
          <button type="button" onClick={() => save(stale.currentRevision)}>
            Save mine over it
          </button>
        </div>
      )}
      <div className="editor-body">
        <aside aria-label="Layers" className="panel">
          <h2>Layers</h2>
          <SizesPanel
            doc={doc}
            sizeIndex={sizeIndex}
            editable={editable}
            onSize={(i) => {
              setSizeIndex(i);
              setSelected(EMPTY);
            }}
            change={change}
          />
          <ul className="layers">
            {layers.map((e) => (
              <li key={e.name}>
                <button
                  type="button"
                  aria-pressed={selected.includes(e.name)}
                  onClick={(event) => clicked(sizeIndex, e.name, isAdditive(event))}
                >
                  {e.name}
                </button>
                {e.visible === false && <span> (hidden)</span>}
              </li>
            ))}
          </ul>
          {editable && <AddElements doc={doc} sizeIndex={sizeIndex} change={change} select={selectOne} />}
          <VersionsPanel
            hash={hash}
            editable={editable}
            dirty={dirty}
            previewing={preview?.version.id ?? null}
            onPreview={(version, versionDoc) => {
              setPreview(version && versionDoc ? { version, doc: versionDoc } : null);
              setSelected(EMPTY);
            }}
            onRestored={restored}
          />
        </aside>
        <div className="editor-canvas" ref={canvasArea}>
          {preview && (
            <p role="status" className="notice">
              Previewing “{preview.version.versionName}” — read-only; close the preview to edit.
            </p>
          )}
          {allSizes ? (
            // Side by side: every size at once, each editable; acting on one makes it the size being edited, so the
            // layers and properties follow it.
            <div className="all-sizes">
              {shownDoc.sizes.map((size, i) => (
                <figure key={size.hash ?? i}>
                  <figcaption>
                    {size.name} · {size.width}×{size.height}
                  </figcaption>
                  <Canvas
                    doc={shownDoc}
                    sizeIndex={i}
                    selected={!preview && i === sizeIndex ? selected : EMPTY}
                    editable={editable && !preview}
                    zoom={zoom}
                    motion={motion}
                    onSelect={(name, additive) => {
                      clicked(i, name, additive);
                      setSizeIndex(i);
                    }}
                    onGeometry={(patches) => {
                      setSizeIndex(i);
                      change(setGeometries(doc, i, new Map(Object.entries(patches))));
                    }}
                  />
                </figure>
              ))}
            </div>
          ) : (
            <Canvas
              doc={shownDoc}
              sizeIndex={shownSize}
              selected={preview ? EMPTY : selected}
              editable={editable && !preview}
              zoom={zoom}
              motion={motion}
              onSelect={(name, additive) => clicked(sizeIndex, name, additive)}
              onGeometry={(patches) => change(setGeometries(doc, sizeIndex, new Map(Object.entries(patches))))}
            />
          )}
        </div>
        <aside aria-label="Properties" className="panel">
          <h2>Properties</h2>
          {element ? (
            <Properties
              element={element}
              editable={editable}
              onChange={(key, value) =>
                change(setProperties(doc, sizeIndex, element.name, { [key]: value }), `${element.name}/${key}`)
              }
            />
          ) : selected.length > 1 ? (
            <>
              <p role="status">{selected.length} elements selected</p>
              <p>
                {selected.join(', ')}. Align, distribute, nudge, z-order, show or hide, copy, duplicate and delete act
                on all of them; select one to change its properties.
              </p>
            </>
          ) : (
            <p>Select an element on the canvas or in the layers (Shift or Ctrl-click to choose several).</p>
          )}
          <FindingsList findings={findings} checking={checked.isFetching} onSelect={selectOne} />
          <FindingMarks findings={findings} />
        </aside>
        <Timeline
          size={shownDoc.sizes[shownSize]}
          loop={shownDoc.loop}
          selected={selected}
          canvasArea={canvasArea}
          motion={motion}
          onMotion={setMotion}
          onSelect={selectOne}
        />
      </div>
      {exporting && (
        <ExportDialog design={{ id: hash, name: doc.name, thumbUrl: null }} onClose={() => setExporting(false)} />
      )}
    </section>
  );
}
