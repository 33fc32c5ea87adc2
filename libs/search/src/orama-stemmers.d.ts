// The Snowball stemmers of @orama/stemmers, one subpath per language (its package exports them; the
// workspace's `node` module resolution does not read `exports`, so their types are declared here).
declare module '@orama/stemmers/*' {
  export function stemmer(word: string): string;
  export const language: string;
}
