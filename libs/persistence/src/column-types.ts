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
