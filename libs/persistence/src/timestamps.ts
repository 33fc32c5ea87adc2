/** Timestamps stay text with microseconds (`2026-11-21T10:04:05.123456+00:00`), never Date (milliseconds only). */

const ISO_WITH_ZONE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:?\d{2})$/;
const PG_UTC = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

/** PostgreSQL's text output of a timestamptz in a UTC session → `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`. */
export function formatTimestamp(pgText: string): string {
  const match = PG_UTC.exec(pgText);
  if (!match) throw new Error(`unexpected timestamptz text ${JSON.stringify(pgText)}; is the session time zone UTC?`);
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(6, '0')}+00:00`;
}

/** PostgreSQL's timestamptz holds offsets up to ±15:59; anything beyond is refused as input, never a 500. */
function isStorableOffset(zone: string): boolean {
  const digits = zone.slice(1).replace(':', '');
  return Number(digits.slice(0, 2)) <= 15 && Number(digits.slice(2, 4)) <= 59;
}

/** An incoming ISO 8601 timestamp unchanged if calendar-valid, zoned and at most microseconds; else undefined. */
export function parseTimestampInput(value: string): string | undefined {
  const match = ISO_WITH_ZONE.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, , zone] = match;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  const sameCalendar = date.getUTCFullYear() === Number(y) && date.getUTCMonth() === Number(mo) - 1 && date.getUTCDate() === Number(d);
  if (!sameCalendar || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  if (zone !== 'Z' && zone && !isStorableOffset(zone)) return undefined;
  // The instant in UTC must still have a four-digit year (`9999-12-31T23:00:00-05:00` is in 10000),
  // as every timestamp we return does.
  if (zone && zone !== 'Z' && Number(y) === 9999) {
    const sign = zone.startsWith('-') ? 1 : -1;
    const digits = zone.slice(1).replace(':', '');
    const utc = date.getTime() + sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
    if (new Date(utc).getUTCFullYear() > 9999) return undefined;
  }
  return value;
}

/** The current instant, formatted like every other timestamp (for code that must not ask the database). */
export function nowTimestamp(): string {
  return new Date().toISOString().replace('Z', '000+00:00');
}
