// Generated profile pictures: an SVG with the user's initials on a colour derived from the user id, served by the
// service under a signed URL (no bearer token is needed to show it in an <img>).
import { createHash, timingSafeEqual } from 'node:crypto';
import { type ServerKeys, signLink } from '../storage/secrets.js';

const COLOURS = [
  '#2563EB',
  '#7C3AED',
  '#DB2777',
  '#DC2626',
  '#EA580C',
  '#CA8A04',
  '#16A34A',
  '#0D9488',
  '#0891B2',
  '#4F46E5',
];

export function avatarUrl(publicUrl: string, keys: ServerKeys, userId: number): string {
  return `${publicUrl}/avatars/${userId}.svg?s=${signLink(keys, `avatar:${userId}`)}`;
}

export function avatarSignatureValid(keys: ServerKeys, userId: number, signature: string): boolean {
  const expected = Buffer.from(signLink(keys, `avatar:${userId}`));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function initials(name: string): string {
  const words = name.trim().split(/\s+/u).filter(Boolean);
  const letters = words.length > 1 ? [words[0], words.at(-1)!] : words;
  return letters
    .map((w) => Array.from(w)[0] ?? '')
    .join('')
    .toUpperCase();
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function avatarSvg(userId: number, name: string): string {
  const digest = createHash('sha256').update(String(userId)).digest();
  const colour = COLOURS[digest[0] % COLOURS.length];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128" role="img" aria-label="${escapeXml(name)}"><rect width="128" height="128" rx="64" fill="${colour}"/><text x="64" y="64" dy=".35em" text-anchor="middle" font-family="Inter, Arial, sans-serif" font-size="52" font-weight="600" fill="#FFFFFF">${escapeXml(initials(name) || '?')}</text></svg>`;
}
