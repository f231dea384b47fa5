/** What each area (OpenAPI tag, A2A skill tag) is for, in the spec's words. */
import type { Area } from './tool.ts';

export const AREA_DESCRIPTIONS: Record<Area, string> = {
  catalog: 'Shop, event and tier discovery.',
  ticketing: 'The purchase spine: quote, then reserve, then confirm.',
  payments: 'One-shot authorize and result reads.',
  acp: 'Agentic commerce checkout sessions.',
  ucp: 'Universal Commerce Protocol (UCP 2026-04-08) checkout sessions, for platforms that read /.well-known/ucp.',
  vic: 'Mandate-governed purchase-initiate, where the card-network mandate is the spend authority.',
  'signed-mandate':
    'A detached network signature over the mandate artefact is verified before spend authority is granted.',
  ap2: 'Legacy purchase flow, unsupported pending verified checkout authorization.',
  buyer: 'Buyer surface: identity, agents, saved cards and permissions.',
  discovery: 'Public, no authentication: the opt-in shop window and the product feed.',
  protocols: 'MCP and A2A adapters.',
  integration: 'Server-to-server merchant integration with an API token.',
  console: 'The merchant console: roles, API keys, team and embed-origin settings.',
  operations: 'Health, readiness and metrics.',
};
