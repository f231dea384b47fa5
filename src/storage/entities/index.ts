/** Every entity the ORM knows, listed explicitly. */
import { ApiKey } from './api-key.ts';
import { Event, Pool, Shop, Tier } from './catalog.ts';
import { Organization } from './organization.ts';
import { Membership, User } from './user.ts';

export const ENTITIES = [Organization, User, Membership, ApiKey, Shop, Event, Pool, Tier] as const;
