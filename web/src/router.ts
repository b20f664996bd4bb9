// Routing: the app has a handful of flat pages, so a History API hook is enough and costs no bundle bytes; the editor
// (part 2) adds its page as one more case in App.tsx. The server answers index.html for /, /invite/* and /app/*.
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

export function navigate(to: string) {
  window.history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}
