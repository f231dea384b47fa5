/** search_catalog (UCP `POST /catalog/search`): upcoming events of discoverable shops, as UCP products. */
import { z } from 'zod';
import { searchUcpCatalog } from '../../domain/ucp/catalog.ts';
import { UcpCatalogResult, UcpCatalogSearch } from '../../domain/ucp/catalog-schema.ts';
import { negotiatedTransaction } from '../../domain/ucp/negotiation.ts';
import { UCP_CATALOG_SEARCH } from '../../domain/ucp/protocol.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { UCP_CATALOG_TOOL, UcpMeta } from './shared.ts';

export const searchCatalog = defineTool({
  ...UCP_CATALOG_TOOL,
  name: 'search_catalog',
  title: 'Search the UCP catalog',
  description:
    'Public. UCP catalog search: `{ meta: { "ucp-agent" }, catalog: { query?, pagination? } }`. Products are ' +
    'upcoming events of discoverable shops (soonest first), variants their tiers for sale with price and ' +
    'availability; a variant id is the item id for create_checkout. Prices are signals; the checkout decides.',
  input: z.strictObject({ meta: UcpMeta, catalog: UcpCatalogSearch }),
  output: UcpCatalogResult,
  http: { method: 'POST', path: '/v1/ucp/catalog/search' },
  async handler({ meta, catalog }, ctx) {
    return negotiatedTransaction(
      ctx,
      meta['ucp-agent'].profile,
      (tx) => searchUcpCatalog(tx, catalog, UCP_CATALOG_SEARCH),
      UCP_CATALOG_SEARCH,
    );
  },
});
