/** The registry: every tool the service offers, listed explicitly. Surfaces are generated from this list. */
import type { AnyTool } from '../orchestrator/tool.ts';
import { getEvent } from './catalog/get-event.ts';
import { getShop } from './catalog/get-shop.ts';
import { listEvents } from './catalog/list-events.ts';
import { createEvent } from './integration/create-event.ts';
import { createPool } from './integration/create-pool.ts';
import { createShop } from './integration/create-shop.ts';
import { createTier } from './integration/create-tier.ts';
import { listPools } from './integration/list-pools.ts';

export const TOOLS: readonly AnyTool[] = [
  createShop,
  createEvent,
  createPool,
  listPools,
  createTier,
  getShop,
  listEvents,
  getEvent,
];
