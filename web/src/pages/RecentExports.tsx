// Recent exports of a design with their status (issue 18). The API has no "list exports" route, so the browser keeps
// the ids of the exports it started (localStorage, newest first, a few per design) and asks GET /v1/export/{id} for
// each: the statuses are the server's, and an export that no longer exists is shown as such.
import { useQueries } from '@tanstack/react-query';
import { ApiError, api } from '../api';

const KEY = 'placard.recentExports';
const PER_DESIGN = 5;

interface Recent {
  id: string;
  type: string;
  at: string;
}

function load(): Record<string, Recent[]> {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? '{}');
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

export function rememberExport(designId: string, id: string, type: string) {
  const all = load();
  all[designId] = [{ id, type, at: new Date().toISOString() }, ...(all[designId] ?? [])].slice(0, PER_DESIGN);
  try {
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    // Storage full or disabled: the list is a convenience, the export itself is not affected.
  }
}

export function RecentExports({ designId, version }: { designId: string; version: string | null }) {
  const recent = load()[designId] ?? [];
  const results = useQueries({
    queries: recent.map((r) => ({
      queryKey: ['recent-export', r.id, version],
      queryFn: async () => {
        try {
          return (await api<{ response: { status: string } }>('GET', `/v1/export/${r.id}`)).response.status;
        } catch (e) {
          if (e instanceof ApiError && e.status === 404) return 'no longer available';
          throw e;
        }
      },
    })),
  });
  if (recent.length === 0) return null;
  return (
    <section aria-labelledby="recent-exports-title">
      <h3 id="recent-exports-title">Recent exports</h3>
      <ul aria-label="Recent exports">
        {recent.map((r, i) => (
          <li key={r.id}>
            {r.type === 'html' ? 'HTML5' : r.type.toUpperCase()} · {new Date(r.at).toLocaleString()} ·{' '}
            {results[i]?.isError ? results[i].error.message : (results[i]?.data ?? 'checking…')}
          </li>
        ))}
      </ul>
    </section>
  );
}
