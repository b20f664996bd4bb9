// html-minifier-terser ships no types; this is the part of its API the HTML5 packager uses.
declare module 'html-minifier-terser' {
  export function minify(html: string, options?: Record<string, unknown>): Promise<string>;
}
