/**
 * Entities as plain rows, for hot statements written as SQL (the reserve batch, the confirm): a select list of an
 * entity's columns under an alias, and a reader that turns a result row (or a `to_jsonb` object) into an object with
 * the entity's properties, as MikroORM's hydrator would, without the unit of work tracking it.
 */
import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundSql } from './database.ts';

/** One property of an entity, from MikroORM's metadata (one column per property here). */
export interface Field {
  prop: string;
  column: string;
  /** A Date property (timestamps may come as text: from `to_jsonb`, or from the driver's parsers). */
  date: boolean;
}

/** Reads one entity's plain object from a result row. */
export type Reader<T> = (row: Record<string, unknown>) => T;

/** An entity's properties and columns, from the ORM's metadata. */
export function fieldsOf<T extends object>(em: EntityManager, entity: EntityName<T>): Field[] {
  return em
    .getMetadata()
    .get<T>(entity)
    .props.map((p) => ({ prop: p.name as string, column: p.fieldNames[0]!, date: p.runtimeType === 'Date' }));
}

/** The select list `alias."column" as "alias.column"` of `fields`. */
export function selectList(fields: readonly Field[], alias: string): string {
  return fields.map(({ column }) => `${alias}."${column}" as "${alias}.${column}"`).join(', ');
}

/**
 * Turns one entity's columns of a result row (`alias.column`, or plain `column` when `alias` is empty, as in a
 * `to_jsonb` object) into a plain object with the entity's properties: Date properties are made Dates; arrays,
 * numbers, booleans and strings are kept as they come.
 */
export function plainRows<T extends object>(fields: readonly Field[], alias: string): Reader<T> {
  const props = fields.map((f) => ({ ...f, from: alias ? `${alias}.${f.column}` : f.column }));
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const p of props) {
      const value = row[p.from];
      out[p.prop] = p.date && (typeof value === 'string' || typeof value === 'number') ? new Date(value) : value;
    }
    return out as T;
  };
}

/** The insert statement of an entity's every column, from bound parameters cast to each column's type (once per ORM). */
const insertsByEntity = new WeakMap<object, { text: string; fields: Field[]; json: boolean[] }>();

/**
 * Inserts one plain row of an entity (every property; absent ones as null) in one statement with bound parameters:
 * no unit of work, no query building per call.
 */
export async function insertPlainRow<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  row: Partial<Record<keyof T & string, unknown>>,
): Promise<void> {
  const meta = em.getMetadata().get<T>(entity);
  let insert = insertsByEntity.get(meta);
  if (!insert) {
    const fields = fieldsOf(em, entity);
    // Strings as text: an explicit cast to varchar(n) would cut a longer value instead of refusing it.
    const types = meta.props.map((p) => p.columnTypes[0]!.replace(/^varchar\(\d+\)$/, 'text'));
    const columns = fields.map((f) => `"${f.column}"`).join(', ');
    const values = types.map((type, i) => `$${i + 1}::${type}`).join(', ');
    const json = types.map((type) => type === 'jsonb' || type === 'json');
    insert = { text: `insert into "${meta.tableName}" (${columns}) values (${values})`, fields, json };
    insertsByEntity.set(meta, insert);
  }
  // A json column's value goes as JSON text (the driver would send a JavaScript array as a PostgreSQL array).
  const values = insert.fields.map((f, i) => {
    const value = (row as Record<string, unknown>)[f.prop] ?? null;
    return insert.json[i] && value !== null ? JSON.stringify(value) : value;
  });
  await boundSql(em, insert.text, values);
}
