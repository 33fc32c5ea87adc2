import type { ColumnType } from 'kysely';

// The column types the generated row types (`npm run db:types`, ADR 017) are written in, as
// Kysely's codegen declares them; one copy here instead of one in every schema.generated.ts.

/** A column with a default: optional when inserting. */
export type Generated<T> =
  T extends ColumnType<infer S, infer I, infer U> ? ColumnType<S, I | undefined, U> : ColumnType<T, T | undefined, T>;

/** bigint: node-postgres returns it as text. */
export type Int8 = ColumnType<string, bigint | number | string, bigint | number | string>;

/** A PostgreSQL array column. */
export type ArrayType<T> = ArrayTypeImpl<T> extends (infer U)[] ? U[] : ArrayTypeImpl<T>;
export type ArrayTypeImpl<T> = T extends ColumnType<infer S, infer I, infer U> ? ColumnType<S[], I[], U[]> : T[];

/** json and jsonb columns. */
export type Json = JsonValue;
export type JsonArray = JsonValue[];
export type JsonObject = { [x: string]: JsonValue | undefined };
export type JsonPrimitive = boolean | number | string | null;
export type JsonValue = JsonArray | JsonObject | JsonPrimitive;

/**
 * What node-postgres takes for a statement's parameter, by the PostgreSQL type it has (JSON goes as
 * text); the generated statements' parameters are written in these (`Pg['bigint']`, `Pg['text[]']`,
 * ADR 017). PostgreSQL cannot tell a parameter's nullability, so each takes null.
 */
export type Pg = { [Type in keyof PgScalars]: PgScalars[Type] | null } & {
  [Type in keyof PgScalars as `${Type}[]`]: ReadonlyArray<PgScalars[Type] | null> | null;
};

interface PgScalars {
  text: string;
  'character varying': string;
  character: string;
  name: string;
  citext: string;
  inet: string;
  interval: string;
  uuid: string;
  smallint: number;
  integer: number;
  real: number;
  'double precision': number;
  bigint: number | string | bigint;
  numeric: number | string;
  boolean: boolean;
  'timestamp with time zone': string | Date;
  'timestamp without time zone': string | Date;
  date: string | Date;
  json: string;
  jsonb: string;
  bytea: Buffer;
}
