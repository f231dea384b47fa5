/** The domain services a tool handler may use; built once by createApp and shared by every call. */
import type { Config } from '../config.ts';
import type { Database } from '../storage/database.ts';
import type { Clock } from './clock.ts';

export interface Services {
  config: Config;
  db: Database;
  clock: Clock;
  /** The base URL people and agents reach this server at. */
  publicUrl: () => string;
}
