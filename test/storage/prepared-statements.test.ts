/**
 * Repeated statements go as named prepared statements (src/storage/prepared-statements.ts): a text seen twice is named
 * and each connection parses it once; the number of named texts is bounded; a statement a schema change invalidated
 * fails once and then runs unnamed; `preparedStatements: false` (DATABASE_PREPARED_STATEMENTS=off) names nothing.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Database, boundSql } from '../../src/storage/database.ts';
import { DEFAULT_MAX_PREPARED } from '../../src/storage/prepared-statements.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { createTestDatabase } from '../support/database.ts';

const opened: Database[] = [];
after(async () => {
  for (const db of opened) await db.close();
});

/** A database on one pooled connection, so every statement below runs on the connection that reads the view. */
async function onOneConnection(preparedStatements: boolean): Promise<Database> {
  const db = await Database.open(await createTestDatabase(), { poolMax: 1, preparedStatements });
  opened.push(db);
  await db.execute('create table things (id int primary key, name text)');
  await db.execute("insert into things values (1, 'one'), (2, 'two')");
  return db;
}

/** Runs `text` with bind parameters, as the ORM's queries and `boundSql` send them. */
const bound = (db: Database, text: string, params: unknown[]) => boundSql(db.fork(), text, params);
const prepared = async (db: Database) =>
  (await db.execute<{ statement: string }>('select statement from pg_prepared_statements order by statement')).map(
    (row) => row.statement,
  );

test('a statement sent with parameters is named the second time and parsed once per connection after that', async () => {
  const db = await onOneConnection(true);
  const text = 'select name from things where id = $1';
  assert.deepEqual(await bound(db, text, [1]), [{ name: 'one' }]);
  assert.deepEqual(await prepared(db), [], 'seen once: sent unnamed');
  assert.deepEqual(await bound(db, text, [2]), [{ name: 'two' }]);
  assert.deepEqual(await prepared(db), [text], 'seen twice: named');
  for (let i = 0; i < 5; i++) assert.deepEqual(await bound(db, text, [1 + (i % 2)]), [{ name: i % 2 ? 'two' : 'one' }]);
  assert.deepEqual(await prepared(db), [text], 'one prepared statement, however often it runs');
  // A statement without parameters is never named.
  await db.execute('select count(*) from things');
  await db.execute('select count(*) from things');
  assert.deepEqual(await prepared(db), [text]);
});

test('at most DEFAULT_MAX_PREPARED texts are named; the rest run unnamed and answer the same', async () => {
  const db = await onOneConnection(true);
  const texts = Array.from(
    { length: DEFAULT_MAX_PREPARED + 5 },
    (_, i) => `select name, ${i} as n from things where id = $1`,
  );
  for (const text of texts) {
    for (let i = 0; i < 2; i++) assert.deepEqual(await bound(db, text, [2]), [{ name: 'two', n: texts.indexOf(text) }]);
  }
  assert.equal((await prepared(db)).length, DEFAULT_MAX_PREPARED);
});

test('a prepared statement a schema change invalidates runs unnamed from then on: again at once outside a transaction', async () => {
  const db = await onOneConnection(true);
  const text = 'select * from things where id = $1';
  await bound(db, text, [1]);
  await bound(db, text, [1]);
  assert.deepEqual(await prepared(db), [text]);
  await db.execute('alter table things add column seats int');
  assert.deepEqual(await bound(db, text, [1]), [{ id: 1, name: 'one', seats: null }]);
  assert.deepEqual(await bound(db, text, [2]), [{ id: 2, name: 'two', seats: null }]);
});

test('inside a transaction the invalidated statement fails its transaction once, answered 503 unavailable with Retry-After', async () => {
  const db = await onOneConnection(true);
  const text = 'select * from things where id = $1';
  await bound(db, text, [1]);
  await bound(db, text, [1]);
  await db.execute('alter table things add column seats int');
  const failed = await db
    .transaction((em) => boundSql(em, text, [1]))
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  assert.equal((failed as { code?: string } | undefined)?.code, '0A000');
  const mapped = db.mapDatabaseError(failed);
  assert.equal(mapped?.code, 'unavailable');
  assert.equal(mapped?.retryAfter, 1);
  assert.deepEqual(await db.transaction((em) => boundSql(em, text, [2])), [{ id: 2, name: 'two', seats: null }]);
});

test('with prepared statements off, nothing is named', async () => {
  const db = await onOneConnection(false);
  const text = 'select name from things where id = $1';
  for (let i = 0; i < 3; i++) assert.deepEqual(await bound(db, text, [1]), [{ name: 'one' }]);
  assert.deepEqual(await prepared(db), []);
});

test('DATABASE_PREPARED_STATEMENTS is on by default, off when set so; any other value is refused, naming it', () => {
  assert.equal(loadConfig({}).databasePreparedStatements, true);
  assert.equal(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'on' }).databasePreparedStatements, true);
  assert.equal(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'off' }).databasePreparedStatements, false);
  for (const bad of ['false', '0', 'OFF', ''])
    assert.throws(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: bad }), /DATABASE_PREPARED_STATEMENTS/);
});
