// Who is signed in, through TanStack Query: one cached ['session'] entry that sign-in, sign-out and 401s update.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, setCsrfToken } from './api';

export interface SessionUser {
  id: number;
  name: string;
  email: string;
  teamId: number;
  role: { id: number; name: 'Owner' | 'Admin' | 'Editor' | 'Viewer' };
}
export interface SessionBody {
  response: { user: SessionUser; csrfToken: string | null };
}

export function useSession() {
  return useQuery({
    queryKey: ['session'],
    queryFn: async () => {
      try {
        const body = await api<SessionBody>('GET', '/v1/auth/session');
        setCsrfToken(body.response.csrfToken);
        return body.response.user;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useSignedIn() {
  const client = useQueryClient();
  return (body: SessionBody) => {
    setCsrfToken(body.response.csrfToken);
    client.setQueryData(['session'], body.response.user);
  };
}

/** Roles as the API has them: Editors and above change content, Admins and above manage the team. */
export const canWrite = (user: SessionUser) => user.role.id <= 3;
export const canManage = (user: SessionUser) => user.role.id <= 2;
