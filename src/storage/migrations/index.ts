/** The checked-in migrations, in order. Applied at start-up; never edit one that has shipped. */
import { Migration0001Core } from './0001-core.ts';
import { Migration0003Webhooks } from './0003-webhooks.ts';

export const MIGRATIONS = [
  { name: '0001-core', class: Migration0001Core },
  { name: '0003-webhooks', class: Migration0003Webhooks },
] as const;
