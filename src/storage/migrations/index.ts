/** The checked-in migrations, in order. Applied at start-up; never edit one that has shipped. */
import { Migration0001Core } from './0001-core.ts';

export const MIGRATIONS = [{ name: '0001-core', class: Migration0001Core }] as const;
