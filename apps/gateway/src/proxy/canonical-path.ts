/** RFC 3986 unreserved characters: percent-encoding one of them changes nothing (§6.2.2.2). */
const UNRESERVED = /^[A-Za-z0-9._~-]$/;
const PERCENT_ENCODED = /%[0-9A-Fa-f]{2}/g;

export type CanonicalPath = { path: string } | { refused: string };

/**
 * The gateway's one idea of a request's path (the query string aside): what the key check reads,
 * what the route is, and what the service is sent. Percent-encoded unreserved characters are
 * decoded (`/%61pi/v1` is `/api/v1`, which is also how the router reads it, so the check and the
 * route cannot disagree); every other escape is kept as sent. A path with a `.` or `..` segment or
 * an empty one (`//`), written plainly or encoded, is refused: clients, proxies and routers resolve
 * those differently, so it has no single meaning. A trailing `/` is kept.
 */
export function canonicalPath(path: string): CanonicalPath {
  const decoded = path.includes('%') ? path.replace(PERCENT_ENCODED, (escape) => decodeUnreserved(escape)) : path;
  // A dot segment needs "/." and an empty one "//": most paths are settled here, without a split.
  if (!decoded.includes('/.') && !decoded.includes('//')) return { path: decoded };
  const segments = decoded.split('/');
  // segments[0] is what precedes the leading '/'; the last one may be empty (a trailing '/').
  for (let i = 1; i < segments.length; i += 1) {
    const segment = segments[i];
    if (segment === '.' || segment === '..') return { refused: 'The path has a "." or ".." segment.' };
    if (segment === '' && i < segments.length - 1) return { refused: 'The path has an empty segment ("//").' };
  }
  return { path: decoded };
}

function decodeUnreserved(escape: string): string {
  const char = String.fromCharCode(parseInt(escape.slice(1), 16));
  return UNRESERVED.test(char) ? char : escape;
}
