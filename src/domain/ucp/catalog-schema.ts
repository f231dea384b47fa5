/** The UCP catalog shapes this server reads and answers (a subset of catalog_search.json / catalog_lookup.json). */
import { z } from 'zod';

const Text = (max: number) => z.string().max(max);

/** Most products a search page or a lookup answers. */
export const CATALOG_PAGE_MAX = 20;

export const UcpCatalogSearch = z
  .strictObject({
    query: Text(200).optional().describe('Free text matched against event titles and venues; absent: browse all.'),
    pagination: z
      .strictObject({
        cursor: Text(100).optional().describe('The cursor of the previous page.'),
        limit: z.number().int().min(1).max(CATALOG_PAGE_MAX).optional().describe('Page size (default 10, at most 20).'),
      })
      .optional()
      .describe('Cursor pagination.'),
  })
  .describe('The search (UCP catalog search request): query and pagination; context and filters are not read.');

export const UcpCatalogLookup = z
  .strictObject({
    ids: z
      .array(Text(100))
      .min(1)
      .max(CATALOG_PAGE_MAX)
      .describe('Event ids (products, evt_…) and tier ids (variants, tier_…); at most 20.'),
  })
  .describe('The lookup (UCP catalog lookup request): identifiers to resolve.');

const Price = z.object({ amount: z.number().int(), currency: Text(3) });
const Description = z.object({ plain: Text(1000) });

const Variant = z.object({
  id: Text(100).describe('The tier id: the checkout’s line_items[].item.id.'),
  title: Text(400),
  description: Description,
  price: Price,
  availability: z.object({ available: z.boolean(), status: Text(20) }),
  inputs: z
    .array(z.object({ id: Text(100), match: z.enum(['exact', 'featured']) }))
    .max(CATALOG_PAGE_MAX)
    .optional()
    .describe('Lookup only: which requested ids resolved to this variant, and how.'),
});

/** A product: an upcoming event of a discoverable shop; its variants are the tiers for sale. */
export const UcpProduct = z.object({
  id: Text(100).describe('The event id.'),
  title: Text(200),
  description: Description,
  url: Text(2200).describe('The shop window.'),
  price_range: z.object({ min: Price, max: Price }),
  variants: z.array(Variant).max(100),
});
export type UcpProductOut = z.infer<typeof UcpProduct>;

export const UcpCatalogResult = z.object({
  ucp: z.object({
    version: Text(10),
    status: z.enum(['success', 'error']),
    capabilities: z.record(Text(100), z.array(z.object({ version: Text(10) })).max(1)),
  }),
  products: z.array(UcpProduct).max(CATALOG_PAGE_MAX),
  pagination: z
    .object({ has_next_page: z.boolean(), cursor: Text(100).optional() })
    .optional()
    .describe('Search only: the next page’s cursor.'),
});
export type UcpCatalogResultOut = z.infer<typeof UcpCatalogResult>;
