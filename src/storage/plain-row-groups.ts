/**
 * Plain rows of one entity inserted in groups, outside any transaction: rows arriving while one insert runs are
 * inserted together by the next, in one statement and one commit (a flash sale's quotes: one insert and one commit
 * per quote was the quote's whole write). A row alone runs today's single-row insert (`insertPlainRow`). A group whose
 * statement fails inserts its rows one by one, so each caller gets its own outcome.
 */
import type { EntityName } from '@mikro-orm/core';
import { CallGroups } from '../kernel/call-groups.ts';
import type { Database } from './database.ts';
import { fieldsOf, insertPlainRow, type Field } from './plain-rows.ts';

type Row = Record<string, unknown>;

export class PlainRowGroups<T extends object> extends CallGroups<{ row: Row }, void> {
  private readonly db: Database;
  private readonly entity: EntityName<T>;
  private statement: { text: string; fields: Field[] } | undefined;

  constructor(db: Database, entity: EntityName<T>) {
    super(64, 1);
    this.db = db;
    this.entity = entity;
  }

  /** Inserts `row` (every property of the entity; absent ones as null), with the rows arriving meanwhile. */
  insert(row: Partial<Record<keyof T & string, unknown>>): Promise<void> {
    return this.enqueue({ row });
  }

  private one(row: Row): Promise<void> {
    return insertPlainRow(this.db.fork(), this.entity, row as Partial<Record<keyof T & string, unknown>>);
  }

  /** `insert … select … from jsonb_populate_recordset(null::table, $1)`: every column typed by the table itself. */
  private many(): { text: string; fields: Field[] } {
    if (!this.statement) {
      const em = this.db.fork();
      const table = em.getMetadata().get<T>(this.entity).tableName;
      const fields = fieldsOf(em, this.entity);
      const columns = fields.map((f) => `"${f.column}"`).join(', ');
      this.statement = {
        text: `insert into "${table}" (${columns}) select ${columns} from jsonb_populate_recordset(null::"${table}", $1::jsonb)`,
        fields,
      };
    }
    return this.statement;
  }

  protected async run(group: { row: Row; resolve: () => void; reject: (err: unknown) => void }[]): Promise<void> {
    if (group.length === 1) return this.eachAlone(group, (m) => this.one(m.row));
    const { text, fields } = this.many();
    const rows = group.map(({ row }) => Object.fromEntries(fields.map((f) => [f.column, row[f.prop] ?? null])));
    try {
      await this.db.bound(text, [JSON.stringify(rows)]);
    } catch {
      return this.eachAlone(group, (m) => this.one(m.row));
    }
    for (const m of group) m.resolve();
  }
}

const groups = new WeakMap<Database, Map<unknown, PlainRowGroups<object>>>();

/** The process's insert groups of `entity` on `db` (one per database and entity). */
export function plainRowGroups<T extends object>(db: Database, entity: EntityName<T>): PlainRowGroups<T> {
  let byEntity = groups.get(db);
  if (!byEntity) groups.set(db, (byEntity = new Map<unknown, PlainRowGroups<object>>()));
  let g = byEntity.get(entity);
  if (!g) byEntity.set(entity, (g = new PlainRowGroups<object>(db, entity as EntityName<object>)));
  return g as unknown as PlainRowGroups<T>;
}
