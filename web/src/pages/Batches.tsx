// Batches (issue 22): one design, many rows. Pick a design, upload a CSV/TSV file or give a feed URL, map columns to
// element attributes (a column, or a template such as `{title} – {price|currency:EUR:de-DE}`), see the first rows
// rendered with their preflight findings, run, watch the progress and download the zip and the results CSV. Every
// call is a /v1 route an API client would use (POST /v1/batches/preview, POST /v1/batches, GET /v1/batches…).
// Lazy-loaded: not part of the first view's bundle.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { parse as parseCsv } from 'csv-parse/browser/esm/sync';
import { type FormEvent, useEffect, useMemo, useState } from 'react';
import { ApiError, api, type DesignNode, qs, upload } from '../api';
import { canWrite, type SessionUser } from '../session';

const TYPES = ['png', 'jpg', 'webp', 'pdf', 'gif', 'mp4', 'html'] as const;
// The attributes the mapping table offers per element: its main value, and whether it shows.
const MAIN_ATTRIBUTES = ['LABEL', 'SOURCE', 'CODE'] as const;
const TERMINAL = new Set(['complete', 'completeWithError', 'failed', 'cancelled']);
const STATUS_WORDS: Record<string, string> = {
  pending: 'Waiting',
  running: 'Running',
  complete: 'Complete',
  completeWithError: 'Complete with errors',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

interface Project {
  id: number;
  name: string;
}
interface EditableElement {
  name: string;
  layerType: string;
  value: string | null;
  visible: boolean;
  attributes: string[];
}
interface Finding {
  code: string;
  severity: 'error' | 'warning' | 'info';
  sizeName: string;
  elementName: string | null;
  message: string;
}
interface PreviewRow {
  index: number;
  key: string;
  changes: { elementName: string; attribute: string; value: string }[];
  findings: Finding[];
  imageUrl: string | null;
  error: { code: string; message: string } | null;
}
interface Preview {
  columns: string[];
  rowCount: number;
  rows: PreviewRow[];
}
interface Batch {
  id: number;
  status: string;
  templateHash: string;
  type: string;
  rowCount: number;
  counts: Record<'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled', number>;
  progress: number;
  zipUrl: string | null;
  resultsUrl: string | null;
  createdAt: string;
  finishedAt: string | null;
}
interface MappingEntry {
  elementName: string;
  attribute: string;
  value: string;
}
/**
 * Rows to preview. A file is read once, when it is chosen: the preview sends its first rows (`excerpt`, as `csv` text
 * or a small feed file), and only the run sends the whole file.
 */
type Source =
  | { kind: 'file'; file: File; version: number; excerpt: Excerpt | null }
  | { kind: 'feed'; url: string }
  | null;
/** The first rows of a chosen file, and how many rows it has in all (for the preview's count). */
type Excerpt = { kind: 'csv'; text: string; rowCount: number } | { kind: 'xml'; file: Blob; rowCount: number };

/** One row of the mapping table: an element's attribute. */
interface Slot {
  elementName: string;
  attribute: string;
}

function slotKey(slot: Slot): string {
  return `${slot.elementName}\u0000${slot.attribute}`;
}

/** The value after `delay` ms without change: the preview follows typing without a request per key. */
function useDebounced<T>(value: T, delay: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}

/** The template of a column alone, as the column select writes it. */
function columnTemplate(column: string): string {
  return `{${column.replace(/[{}]/g, (brace) => brace + brace)}}`;
}

/** Rows the preview shows (the server's PREVIEW_ROWS): the excerpt holds these and no more. */
const PREVIEW_ROWS = 10;

/** The delimiter the server sniffs (domain/batch/rows.ts): the most frequent outside quotes on the header line. */
function sniffDelimiter(text: string): '\t' | ',' | ';' {
  const line = text.replace(/^[\r\n]+/, '').split('\n', 1)[0] ?? '';
  const counts = { '\t': 0, ',': 0, ';': 0 };
  let inQuotes = false;
  for (const char of line) {
    if (char === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (char === '\t' || char === ',' || char === ';')) counts[char]++;
  }
  if (counts['\t'] > 0 && counts['\t'] >= counts[','] && counts['\t'] >= counts[';']) return '\t';
  return counts[';'] > counts[','] ? ';' : ',';
}

/**
 * The header and first rows of a CSV/TSV file, as the file has them (cut where the csv-parse of the server would end
 * the last of those records, quoted newlines included), and its count of rows. Null when the browser cannot cut it
 * (not UTF-8, a quote never closed…): the preview then sends the file and the server says what is wrong.
 */
function csvExcerpt(bytes: Uint8Array): Excerpt | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  // Where a record ends is counted in UTF-8 bytes (csv-parse reads the text as bytes), without the BOM dropped above.
  const body = new TextEncoder().encode(text);
  let records = 0;
  let end = 0;
  try {
    parseCsv(text, {
      delimiter: sniffDelimiter(text),
      relax_column_count: true,
      on_record: (record: string[], context: { bytes: number }) => {
        // Blank lines are no rows (as on the server); the header is the first record.
        if (record.every((value) => value === '')) return null;
        records += 1;
        if (records <= PREVIEW_ROWS + 1) end = context.bytes;
        return null;
      },
    });
  } catch {
    return null;
  }
  return { kind: 'csv', text: new TextDecoder().decode(body.subarray(0, end)), rowCount: Math.max(0, records - 1) };
}

/** An RSS/Atom feed file with its first items only (the browser's own XML parser), and its count of items. */
function xmlExcerpt(text: string): Excerpt | null {
  const doc = new DOMParser().parseFromString(text, 'application/xml');
  if (doc.getElementsByTagName('parsererror').length > 0) return null;
  const items = [...doc.getElementsByTagName('item'), ...doc.getElementsByTagName('entry')];
  for (const item of items.slice(PREVIEW_ROWS)) item.parentNode?.removeChild(item);
  const xml = new XMLSerializer().serializeToString(doc);
  return { kind: 'xml', file: new Blob([xml], { type: 'application/xml' }), rowCount: items.length };
}

/** Reads a chosen file once: its excerpt for the preview. */
async function excerptOf(file: File): Promise<Excerpt | null> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const head = new TextDecoder().decode(bytes.subarray(0, 512)).replace(/^\uFEFF/, '').trimStart();
  return head.startsWith('<') ? xmlExcerpt(new TextDecoder().decode(bytes)) : csvExcerpt(bytes);
}

/** A multipart body: the `file` part and the other fields as text. */
function formOf(fields: Record<string, unknown>, file: Blob, fileName: string): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  form.append('file', file, fileName);
  return form;
}

/** The body of a run: the whole file as multipart, a feed as JSON. */
async function send<T>(url: string, source: Exclude<Source, null>, fields: Record<string, unknown>): Promise<T> {
  if (source.kind === 'feed') return api<T>('POST', url, { ...fields, feedUrl: source.url });
  return upload<T>(url, formOf(fields, source.file, source.file.name), () => undefined);
}

/** The body of a preview: a file's excerpt (never the file again on each change of the mapping), a feed as JSON. */
async function sendPreview(source: Exclude<Source, null>, fields: Record<string, unknown>): Promise<Preview> {
  const url = '/v1/batches/preview';
  let answer: { response: Preview };
  // No excerpt (a file the browser could not read as rows): the file itself, and the server says what is wrong.
  if (source.kind === 'feed' || source.excerpt === null) answer = await send(url, source, fields);
  else if (source.excerpt.kind === 'csv') answer = await api('POST', url, { ...fields, csv: source.excerpt.text });
  else answer = await upload(url, formOf(fields, source.excerpt.file, source.file.name), () => undefined);
  // The excerpt's rows are the first ones; the count is the whole file's.
  return source.kind === 'file' && source.excerpt
    ? { ...answer.response, rowCount: source.excerpt.rowCount }
    : answer.response;
}

export default function Batches({ user }: { user: SessionUser }) {
  const client = useQueryClient();
  const writer = canWrite(user);
  const projects = useQuery({
    queryKey: ['projects'],
    queryFn: () => api<{ response: { nodes: Project[] } }>('GET', '/v1/projects?limit=100'),
  });
  const [projectId, setProjectId] = useState<number | null>(null);
  useEffect(() => {
    if (projectId === null && projects.data?.response.nodes[0]) setProjectId(projects.data.response.nodes[0].id);
  }, [projects.data, projectId]);
  const designs = useQuery({
    queryKey: ['designs', projectId, 'batches'],
    enabled: projectId !== null,
    queryFn: () =>
      api<{ response: { nodes: DesignNode[] } }>(
        'GET',
        `/v1/templates${qs({ projectId, orderBy: 'UPDATED_AT', orderDirection: 'DESC', limit: 100 })}`,
      ),
  });
  const [designHash, setDesignHash] = useState('');
  const elements = useQuery({
    queryKey: ['elements', designHash],
    enabled: designHash !== '',
    queryFn: () => api<{ response: EditableElement[] }>('GET', `/v1/templates/${designHash}/elements`),
  });

  const [sourceKind, setSourceKind] = useState<'file' | 'feed'>('file');
  const [source, setSource] = useState<Source>(null);
  const [feedText, setFeedText] = useState('');
  const [templates, setTemplates] = useState<Record<string, string>>({});
  const [rowKey, setRowKey] = useState('');
  const [onFindings, setOnFindings] = useState<'render' | 'skip' | 'fail'>('render');
  const [type, setType] = useState<(typeof TYPES)[number]>('png');
  const [error, setError] = useState<string | null>(null);
  const [batchId, setBatchId] = useState<number | null>(null);

  // An element appears once even when a set repeats it in every size (changes apply to every size by name).
  const unique = useMemo(() => {
    const out: EditableElement[] = [];
    for (const e of elements.data?.response ?? []) if (!out.some((x) => x.name === e.name)) out.push(e);
    return out;
  }, [elements.data]);
  const slots = useMemo(() => {
    const out: Slot[] = [];
    for (const e of unique) {
      const main = MAIN_ATTRIBUTES.find((a) => e.attributes.includes(a));
      if (main) out.push({ elementName: e.name, attribute: main });
      if (e.attributes.includes('VISIBILITY')) out.push({ elementName: e.name, attribute: 'VISIBILITY' });
    }
    return out;
  }, [unique]);

  const mapping: MappingEntry[] = slots.flatMap((slot) => {
    const value = templates[slotKey(slot)] ?? '';
    return value.trim() === '' ? [] : [{ ...slot, value }];
  });
  // Before anything is mapped the preview still shows the rows (and the columns to map): with a change that changes
  // nothing, an element's visibility set to what it is.
  const probe = useMemo((): MappingEntry[] => {
    const e = unique.find((x) => x.attributes.includes('VISIBILITY'));
    return e ? [{ elementName: e.name, attribute: 'VISIBILITY', value: String(e.visible) }] : [];
  }, [unique]);

  const fields = {
    templateHash: designHash,
    type,
    mapping: mapping.length > 0 ? mapping : probe,
    rowKey: rowKey || undefined,
    onFindings,
  };
  const settled = useDebounced(JSON.stringify(fields), 400);
  const preview = useQuery({
    queryKey: ['batchPreview', settled, source?.kind === 'file' ? source.version : source?.url],
    enabled: designHash !== '' && source !== null && (JSON.parse(settled) as typeof fields).mapping.length > 0,
    placeholderData: keepPreviousData,
    retry: false,
    queryFn: () => sendPreview(source as Exclude<Source, null>, JSON.parse(settled)),
  });
  const columns = preview.data?.columns ?? [];

  const run = useMutation({
    mutationFn: () => {
      if (!source) throw new ApiError('Upload a file or give a feed URL first.', 0, 'LOCAL');
      if (mapping.length === 0) throw new ApiError('Map at least one element to a column.', 0, 'LOCAL');
      return send<{ response: { batch: Batch } }>('/v1/batches', source, { ...fields, mapping });
    },
    onSuccess: (body) => {
      setError(null);
      setBatchId(body.response.batch.id);
      client.invalidateQueries({ queryKey: ['batches'] });
    },
    onError: (e) => setError(e.message),
  });

  const current = useQuery({
    queryKey: ['batch', batchId],
    enabled: batchId !== null,
    queryFn: () => api<{ response: Batch }>('GET', `/v1/batches/${batchId}`),
    refetchInterval: (query) => (query.state.data && TERMINAL.has(query.state.data.response.status) ? false : 1000),
  });
  const currentBatch = current.data?.response;
  const ended = currentBatch ? TERMINAL.has(currentBatch.status) : false;
  useEffect(() => {
    if (ended) client.invalidateQueries({ queryKey: ['batches'] });
  }, [ended, client]);

  const past = useQuery({
    queryKey: ['batches'],
    queryFn: () => api<{ response: { nodes: Batch[] } }>('GET', '/v1/batches?limit=20'),
  });
  const designName = (hash: string) =>
    designs.data?.response.nodes.find((d) => d.id === hash)?.name ?? hash;

  const chooseDesign = (hash: string) => {
    setDesignHash(hash);
    setTemplates({});
    setRowKey('');
  };
  const loadFeed = (event: FormEvent) => {
    event.preventDefault();
    const url = feedText.trim();
    setSource(url ? { kind: 'feed', url } : null);
  };

  return (
    <section aria-labelledby="batches-title">
      <h1 id="batches-title">Batches</h1>
      <p>One design, one row per variant: upload a spreadsheet or give a product feed, map its columns to elements.</p>

      {writer && (
        <section aria-labelledby="new-batch-title" className="panel batch-form">
          <h2 id="new-batch-title">New batch</h2>
          <div className="toolbar">
            <label>
              Project
              <select value={projectId ?? ''} onChange={(e) => setProjectId(Number(e.target.value))}>
                {projects.data?.response.nodes.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Design
              <select value={designHash} onChange={(e) => chooseDesign(e.target.value)}>
                <option value="">Choose a design…</option>
                {designs.data?.response.nodes.map((d) => (
                  <option key={d.id} value={d.id}>
                    {d.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Format
              <select value={type} onChange={(e) => setType(e.target.value as (typeof TYPES)[number])}>
                {TYPES.map((t) => (
                  <option key={t} value={t}>
                    {t.toUpperCase()}
                  </option>
                ))}
              </select>
            </label>
          </div>

          <fieldset className="toolbar">
            <legend>Rows</legend>
            <label className="check">
              <input
                type="radio"
                name="batch-source"
                checked={sourceKind === 'file'}
                onChange={() => {
                  setSourceKind('file');
                  setSource(null);
                }}
              />
              Upload a CSV or TSV file
            </label>
            <label className="check">
              <input
                type="radio"
                name="batch-source"
                checked={sourceKind === 'feed'}
                onChange={() => {
                  setSourceKind('feed');
                  setSource(null);
                }}
              />
              Product feed URL (CSV or RSS/Atom)
            </label>
            {sourceKind === 'file' ? (
              <label>
                CSV or TSV file
                <input
                  type="file"
                  accept=".csv,.tsv,.txt,.xml,text/csv,text/tab-separated-values,application/xml"
                  onChange={(e) => {
                    const file = e.target.files?.[0];
                    if (!file) {
                      setSource(null);
                      return;
                    }
                    const version = Date.now();
                    // Read once here; a mapping change then sends the excerpt, never the file.
                    excerptOf(file).then(
                      (excerpt) => setSource({ kind: 'file', file, version, excerpt }),
                      () => setSource({ kind: 'file', file, version, excerpt: null }),
                    );
                  }}
                />
              </label>
            ) : (
              <form onSubmit={loadFeed} className="toolbar" aria-label="Feed">
                <label>
                  Feed URL
                  <input
                    type="url"
                    value={feedText}
                    placeholder="https://shop.example/feed.xml"
                    onChange={(e) => setFeedText(e.target.value)}
                  />
                </label>
                <button type="submit">Load feed</button>
              </form>
            )}
          </fieldset>

          {designHash !== '' && (
            <table className="mapping" aria-label="Mapping">
              <thead>
                <tr>
                  <th scope="col">Element</th>
                  <th scope="col">Attribute</th>
                  <th scope="col">Column</th>
                  <th scope="col">Template</th>
                </tr>
              </thead>
              <tbody>
                {slots.map((slot) => {
                  const key = slotKey(slot);
                  const value = templates[key] ?? '';
                  const column = columns.find((c) => columnTemplate(c) === value) ?? '';
                  const setValue = (v: string) => setTemplates((all) => ({ ...all, [key]: v }));
                  const what = `${slot.elementName} ${slot.attribute}`;
                  return (
                    <tr key={key}>
                      <th scope="row">{slot.elementName}</th>
                      <td>{slot.attribute}</td>
                      <td>
                        <select
                          aria-label={`Column for ${what}`}
                          value={column}
                          onChange={(e) => setValue(e.target.value ? columnTemplate(e.target.value) : '')}
                        >
                          <option value="">{value && !column ? 'Template' : 'Not mapped'}</option>
                          {columns.map((c) => (
                            <option key={c} value={c}>
                              {c}
                            </option>
                          ))}
                        </select>
                      </td>
                      <td>
                        <input
                          aria-label={`Template for ${what}`}
                          value={value}
                          maxLength={5000}
                          placeholder={slot.attribute === 'VISIBILITY' ? 'true, false or {column}' : '{title} – {price|currency:EUR}'}
                          onChange={(e) => setValue(e.target.value)}
                        />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}

          <div className="toolbar">
            <label>
              Row key
              <select value={rowKey} onChange={(e) => setRowKey(e.target.value)}>
                <option value="">Row number</option>
                {columns.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Rows with preflight errors
              <select value={onFindings} onChange={(e) => setOnFindings(e.target.value as typeof onFindings)}>
                <option value="render">Render them anyway</option>
                <option value="skip">Skip them</option>
                <option value="fail">Fail them</option>
              </select>
            </label>
            <button type="button" onClick={() => run.mutate()} disabled={run.isPending || !source || !designHash}>
              {run.isPending ? 'Starting…' : 'Run batch'}
            </button>
          </div>
          {error && <p role="alert">{error}</p>}

          <PreviewList
            preview={preview.data}
            pending={preview.isFetching}
            error={preview.isError ? preview.error.message : null}
          />
        </section>
      )}

      {currentBatch && (
        <section aria-labelledby="current-batch-title" className="panel">
          <h2 id="current-batch-title">
            Batch {currentBatch.id} of {designName(currentBatch.templateHash)}
          </h2>
          <BatchProgress batch={currentBatch} />
        </section>
      )}

      <section aria-labelledby="past-batches-title">
        <h2 id="past-batches-title">Past batches</h2>
        {past.isError && <p role="alert">{past.error.message}</p>}
        {past.data && past.data.response.nodes.length === 0 && <p>No batches yet.</p>}
        {past.data && past.data.response.nodes.length > 0 && (
          <table aria-label="Past batches">
            <thead>
              <tr>
                <th scope="col">Batch</th>
                <th scope="col">Design</th>
                <th scope="col">Status</th>
                <th scope="col">Rows</th>
                <th scope="col">Started</th>
                <th scope="col">Files</th>
              </tr>
            </thead>
            <tbody>
              {past.data.response.nodes.map((b) => (
                <tr key={b.id}>
                  <td>
                    <button type="button" onClick={() => setBatchId(b.id)}>
                      Batch {b.id}
                    </button>
                  </td>
                  <td>{designName(b.templateHash)}</td>
                  <td>{STATUS_WORDS[b.status] ?? b.status}</td>
                  <td>
                    {b.counts.succeeded} of {b.rowCount}
                    {b.counts.failed > 0 ? `, ${b.counts.failed} failed` : ''}
                  </td>
                  <td>{new Date(b.createdAt).toLocaleString()}</td>
                  <td>{TERMINAL.has(b.status) ? <DownloadLinks batch={b} /> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </section>
  );
}

function PreviewList({ preview, pending, error }: { preview?: Preview; pending: boolean; error: string | null }) {
  return (
    <section aria-labelledby="batch-preview-title" aria-busy={pending}>
      <h3 id="batch-preview-title">Preview</h3>
      {error && <p role="alert">{error}</p>}
      {!preview && !error && <p>Choose a design and upload rows to see the first ones rendered.</p>}
      {preview && (
        <>
          <p role="status">
            {preview.rowCount} row{preview.rowCount === 1 ? '' : 's'}; columns: {preview.columns.join(', ')}
          </p>
          <ul className="grid" aria-label="Preview rows">
            {preview.rows.map((row) => (
              <li key={row.index} className="card" aria-label={`Row ${row.key}`}>
                {row.imageUrl ? (
                  <img src={row.imageUrl} alt={`Preview of row ${row.key}`} />
                ) : (
                  <div className="thumb" />
                )}
                <h4>Row {row.key}</h4>
                {row.error && <p className="row-error">{row.error.message}</p>}
                {row.findings.length === 0 && !row.error && <p>No preflight findings.</p>}
                {row.findings.length > 0 && (
                  <ul aria-label={`Preflight findings of row ${row.key}`}>
                    {row.findings.map((f, i) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: findings have no id; the list is replaced whole.
                      <li key={i} className={`finding-${f.severity}`}>
                        {/* The message names the size and the element itself. */}
                        <strong>{f.severity}</strong> {f.message}
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

interface BatchRow {
  index: number;
  key: string;
  line: number | null;
  error: { code: string; message: string } | null;
}

function BatchProgress({ batch }: { batch: Batch }) {
  const settledRows = batch.counts.succeeded + batch.counts.failed + batch.counts.skipped + batch.counts.cancelled;
  // The failed rows with their errors (one bad row never fails the batch: the others are in the zip).
  const failed = useQuery({
    queryKey: ['batchRows', batch.id, 'failed', batch.counts.failed],
    enabled: batch.counts.failed > 0,
    queryFn: () =>
      api<{ response: { nodes: BatchRow[] } }>('GET', `/v1/batches/${batch.id}/rows?status=failed&limit=50`),
  });
  return (
    <div>
      <p role="status">
        {STATUS_WORDS[batch.status] ?? batch.status}: {settledRows} of {batch.rowCount} rows done
        {batch.counts.failed > 0 ? `, ${batch.counts.failed} failed` : ''}
        {batch.counts.skipped > 0 ? `, ${batch.counts.skipped} skipped` : ''}
      </p>
      <progress aria-label="Batch progress" max={1} value={batch.progress} />
      {TERMINAL.has(batch.status) && <DownloadLinks batch={batch} />}
      {failed.data && failed.data.response.nodes.length > 0 && (
        <ul aria-label={`Failed rows of batch ${batch.id}`}>
          {failed.data.response.nodes.map((row) => (
            <li key={row.index} className="row-error">
              Row {row.key}
              {row.line !== null ? ` (line ${row.line})` : ''}: {row.error?.message ?? 'failed'}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function DownloadLinks({ batch }: { batch: Batch }) {
  return (
    <span className="downloads">
      {batch.zipUrl && (
        <a href={batch.zipUrl} download aria-label={`Download zip of batch ${batch.id}`}>
          Download zip
        </a>
      )}{' '}
      {batch.resultsUrl && (
        <a href={batch.resultsUrl} download aria-label={`Download results CSV of batch ${batch.id}`}>
          Download results CSV
        </a>
      )}
    </span>
  );
}
