/** lookup_catalog (UCP `POST /catalog/lookup`): events and tiers by id, as UCP products. */
import { z } from 'zod';
import { lookupUcpCatalog } from '../../domain/ucp/catalog.ts';
import { UcpCatalogLookup, UcpCatalogResult } from '../../domain/ucp/catalog-schema.ts';
import { negotiatedTransaction } from '../../domain/ucp/negotiation.ts';
import { UCP_CATALOG_LOOKUP } from '../../domain/ucp/protocol.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { UCP_CATALOG_TOOL, UcpMeta } from './shared.ts';

export const lookupCatalog = defineTool({
  ...UCP_CATALOG_TOOL,
  name: 'lookup_catalog',
  title: 'Look up UCP catalog items',
  description:
    'Public. UCP catalog lookup: `{ meta: { "ucp-agent" }, catalog: { ids } }` with event ids (a product and its ' +
    'featured variant) and tier ids (that variant, exact). Each variant says which ids resolved to it (`inputs`); ' +
    'ids of no upcoming event or tier for sale of a discoverable shop are left out.',
  input: z.strictObject({ meta: UcpMeta, catalog: UcpCatalogLookup }),
  output: UcpCatalogResult,
  http: { method: 'POST', path: '/v1/ucp/catalog/lookup' },
  async handler({ meta, catalog }, ctx) {
    return negotiatedTransaction(
      ctx,
      meta['ucp-agent'].profile,
      (tx) => lookupUcpCatalog(tx, catalog.ids, UCP_CATALOG_LOOKUP),
      UCP_CATALOG_LOOKUP,
    );
  },
});
