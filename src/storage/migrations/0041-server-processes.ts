/**
 * Server processes that route reserves to one owner (RESERVE_ROUTING, docs/scaling.md): each writes a heartbeat row
 * with its internal (loopback) address; the live ones are those that beat in the last few seconds.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0041ServerProcesses extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table if not exists server_processes (
        id text primary key,
        address text not null,
        started_at timestamptz not null,
        beat_at timestamptz not null
      );
    `);
  }
}
