/**
 * Bounds in the OpenAPI projection only (MCP and A2A list the tools' schemas as they are): every integer gets its
 * `format`, and every string and array a response carries gets a true `maxLength` or `maxItems`, from where its value
 * comes from: an input the service stored (the same field's bound in the tools' input schemas), an identifier or a time
 * the service writes, or a limit the domain keeps (FIELD_BOUNDS).
 */
import type { AnyTool } from '../orchestrator/tool.ts';
import { toolInputSchema, type JsonSchema } from '../orchestrator/json-schema.ts';
import { CARD_SCHEMES, Cursor, DateTime, IdRef } from '../kernel/wire.ts';
import { ERRORS } from '../kernel/errors.ts';
import { LANGS } from '../i18n/langs.ts';
import { PROVIDER_NAMES } from '../payments/provider.ts';
import { MAX_SHOPS_LISTED } from '../domain/catalog/catalog.ts';
import { MAX_EMBED_ORIGINS } from '../domain/catalog/embed-origins.ts';
import { WINDOW_EVENT_LIMIT } from '../domain/discovery/shop-window.ts';
import { MAX_WEBHOOKS_PER_SHOP } from '../domain/merchants/webhook-subscriptions.ts';
import { RECENT_ATTESTED_PERMISSIONS } from '../domain/buyers/attestation.ts';
import { MAX_TARGETS } from '../domain/merchants/audit-log.ts';
import { MAX_BUCKETS, OVERVIEW_EVENTS_PAGE } from '../domain/purchase/sales-overview.ts';
import * as LIMITS from '../domain/limits.ts';
import { TOP_ATTESTED_SPENDERS } from '../domain/buyers/spending.ts';
import { maxDeliveryBody } from '../kernel/event-data.ts';

/** A string's or an array's bound, and what the value is where it says more than the length. */
interface Bound {
  maxLength?: number;
  maxItems?: number;
  format?: string;
}

/** What a rule may read: the input bound of a field name, and the length of the public URL the document serves. */
interface Sources {
  input(name: string): number;
  inputItems(name: string): number;
  urlLength: number;
}

const INT32 = 2 ** 31;
const ID = IdRef.maxLength ?? 100;
const TIME = { maxLength: DateTime.maxLength ?? 40, format: 'date-time' };
const longest = (values: readonly string[]) => Math.max(...values.map((v) => v.length));
/** The most tickets one purchase holds (quote's `quantity`): tickets, and refunds (each voids at least one). */
const QUANTITY_MAX = 1000;

/**
 * Response fields by name, each with the reason its bound holds. A string takes the largest bound among its rules here
 * and the input field of the same name (what the service stored is what it accepted), so a rule never lowers what an
 * input allows; a list only what a rule says (a page of results may share its name with a longer or shorter input
 * list). A field that neither names stays unbounded, and UNBOUNDED says why.
 */
const FIELD_BOUNDS: readonly (readonly [RegExp, (s: Sources, name: string) => Bound])[] = [
  // Identifiers the service makes (`newId`: a prefix of at most 5 letters, `_`, 26 base32 characters; the sandbox
  // provider's charge and refund references too) or accepts (IdRef): at most 100 characters.
  [/^(id|.*Id|.*_id|activeKid|invitedBy|providerReference)$/, () => ({ maxLength: ID })],
  [/^(.*Ids|item_ids)\[\]$/, () => ({ maxLength: ID })],
  // Times are written by `iso()` (Date#toISOString, 24 characters) or accepted as DateTime (at most 40).
  [
    /^(.*At|.*_at|at|start|startsAt|endsAt|onSaleStart|onSaleEnd|paymentDeadline|expires|created|since|notBefore)$/,
    () => TIME,
  ],
  // Pages: the largest page a list tool gives (list_events 100, the shop window and the product feed
  // WINDOW_EVENT_LIMIT; list_shops MAX_SHOPS_LISTED; list_pools 1000; orders and deliveries 100), and capped lists.
  // (get_sales_overview's page of OVERVIEW_EVENTS_PAGE events is shorter, and each event's pools are its own pools
  // and its tiers' pools, at most MAX_POOLS_PER_EVENT + MAX_TIERS_PER_EVENT.)
  [/^(events|products)$/, () => ({ maxItems: Math.max(WINDOW_EVENT_LIMIT, OVERVIEW_EVENTS_PAGE) })],
  [/^shops$/, () => ({ maxItems: MAX_SHOPS_LISTED })],
  [/^pools$/, () => ({ maxItems: Math.max(1000, LIMITS.MAX_POOLS_PER_EVENT + LIMITS.MAX_TIERS_PER_EVENT) })],
  [/^(orders|deliveries|entries)$/, () => ({ maxItems: 100 })],
  [/^sales$/, () => ({ maxItems: MAX_BUCKETS })],
  [/^targetIds$/, () => ({ maxItems: MAX_TARGETS })],
  [/^embedOrigins$/, () => ({ maxItems: MAX_EMBED_ORIGINS })],
  [/^webhooks$/, () => ({ maxItems: MAX_WEBHOOKS_PER_SHOP })],
  [/^providers$/, () => ({ maxItems: PROVIDER_NAMES.length })],
  [/^(tickets|ticketIds|refunds|checkIns)$/, () => ({ maxItems: QUANTITY_MAX })],
  [/^recentPermissions$/, () => ({ maxItems: RECENT_ATTESTED_PERMISSIONS })],
  [/^results$/, (s) => ({ maxItems: s.inputItems('scans') })],
  // Lists the domain caps (src/domain/limits.ts), each refused past its cap with `limit_reached`, or read capped.
  [/^(tiers|variants)$/, () => ({ maxItems: LIMITS.MAX_TIERS_PER_EVENT })],
  [/^agents$/, () => ({ maxItems: LIMITS.MAX_AGENTS_PER_BUYER })],
  [/^instruments$/, () => ({ maxItems: LIMITS.MAX_CARDS_PER_BUYER })],
  [/^permissions$/, () => ({ maxItems: LIMITS.MAX_PERMISSIONS_PER_BUYER })],
  [/^(apiKeys|attestKeys|revokedApiKeyIds)$/, () => ({ maxItems: LIMITS.MAX_API_KEYS_PER_ORGANIZATION })],
  [/^members$/, () => ({ maxItems: LIMITS.MAX_MEMBERS_PER_ORGANIZATION })],
  [/^invitations$/, () => ({ maxItems: LIMITS.MAX_OPEN_INVITATIONS })],
  [/^organizations$/, () => ({ maxItems: LIMITS.MAX_ORGANIZATIONS_PER_USER })],
  [/^payments$/, () => ({ maxItems: LIMITS.MAX_PAYMENT_ATTEMPTS })],
  [/^keys$/, () => ({ maxItems: LIMITS.MAX_TICKET_KEYS })],
  [/^buyersNearCeiling$/, () => ({ maxItems: TOP_ATTESTED_SPENDERS })],
  // An order's e-mails: its confirmation, one per refund (each voids a ticket at least) and its resends.
  [/^emails$/, () => ({ maxItems: 1 + QUANTITY_MAX + LIMITS.MAX_RESENDS_PER_ORDER })],
  // Lists the service builds whole (src/domain/acp/session-view.ts, discovery.ts; discovery/product-feed.ts): one
  // payment handler with one instrument schema and the tier's card schemes, one fulfillment option, each total type
  // at most once, a message kept from the last write and one the state adds, no links or interventions yet, the
  // supported versions, two transports and two services, one category and one option per variant; a mandate's shops.
  [/^(handlers|instrument_schemas|fulfillment_options|categories|variant_options)$/, () => ({ maxItems: 1 })],
  [/^accepted_brands$/, () => ({ maxItems: CARD_SCHEMES.length })],
  [/^totals$/, () => ({ maxItems: 8 })],
  [/^(messages|transports|services)$/, () => ({ maxItems: 2 })],
  [/^(supported|required|links|supported_versions)$/, () => ({ maxItems: 10 })],
  [/^merchantIds$/, () => ({ maxItems: 100 })],
  // Lists stored as their input gave them: a tier's restrictions, an API key's scopes, an ACP session's items.
  [
    /^(allowedGeos|allowedSchemes|scopes|line_items|selected_fulfillment_options|item_ids)$/,
    (s, name) => ({ maxItems: s.inputItems(name) }),
  ],
  // An embed origin is `https://` + a DNS name (at most 253 characters, embed-origins.ts) + a port.
  [/^embedOrigins\[\]$/, () => ({ maxLength: 8 + 253 + 6 })],
  // A cursor the service gives must come back through `cursor` (Cursor), so it is never longer.
  [/^nextCursor$/, () => ({ maxLength: Cursor.maxLength ?? 500 })],
  // Credentials the service issues: opaque `tsk_`/`tag_` tokens, or a session JWT of a few bounded claims.
  [/^token$/, () => ({ maxLength: 2000 })],
  [/^tokenPrefix$/, () => ({ maxLength: 10 })],
  // Closed vocabularies typed as text on the wire.
  [/^(scheme|allowedSchemes\[\]|accepted_brands\[\])$/, () => ({ maxLength: longest(CARD_SCHEMES) })],
  [/^(provider|paymentProvider|linked)$/, () => ({ maxLength: longest(PROVIDER_NAMES) })],
  [/^(lang|sessionLang)$/, () => ({ maxLength: longest(LANGS) })],
  [/^failureCode$/, () => ({ maxLength: longest(Object.keys(ERRORS)) })],
  [/^(mode|statusText)$/, () => ({ maxLength: 100 })],
  [/^last4$/, () => ({ maxLength: 4 })],
  [/^secretKey$/, () => ({ maxLength: 10 })],
  // A webhook delivery's last error, cut to 200 characters (dispatcher.ts); the headers it signs and sends.
  [/^(lastError|error)$/, () => ({ maxLength: 200 })],
  // A delivery's body: its event's data as recorded (at most MAX_EVENT_DATA, kernel/event-data.ts) in its envelope.
  [/^body$/, (s) => ({ maxLength: maxDeliveryBody(s.urlLength) })],
  [/^headers\.propertyNames$/, () => ({ maxLength: 100 })],
  [/^headers\.additionalProperties$/, () => ({ maxLength: 1000 })],
  // `<orders|tickets>-<shop id>-<YYYY-MM-DD>.csv`.
  [/^filename$/, () => ({ maxLength: 100 })],
  // Fields that repeat another field the service stored, under another name.
  [/^(agentName|tierName|shopName|organizationName|keyName|value)$/, (s) => ({ maxLength: s.input('name') })],
  [/^eventTitle$/, (s) => ({ maxLength: s.input('title') })],
  [/^eventVenue$/, (s) => ({ maxLength: s.input('venue') })],
  [/^(revokedReason|refundReason|voidReason)$/, (s) => ({ maxLength: s.input('reason') })],
  [/^checkedInDevice$/, (s) => ({ maxLength: s.input('device') })],
  // "Set up by <shop name>".
  [/^label$/, (s) => ({ maxLength: 10 + s.input('name') })],
  // A ticket's codes are scanned through check-in's `code`, so none is longer; the QR image is an SVG of at most
  // 177 x 177 modules (QR version 40), each at most 12 path characters, in base64.
  [/^(signedCode|qrContent)$/, (s) => ({ maxLength: s.input('code') })],
  [/^qrImage$/, () => ({ maxLength: 600_000 })],
  // An agent's public JWK as it was accepted (PublicJwk: member names of at most 3 letters, values of at most 100).
  [/^publicKeyJwk\.propertyNames$/, () => ({ maxLength: 3 })],
  [/^publicKeyJwk\.additionalProperties$/, () => ({ maxLength: 100 })],
  // URLs built from the public URL this document names (PUBLIC_URL): its length plus a path and an id (formUrl also
  // carries the origin, percent-encoded at most threefold).
  [
    /^(api_base_url|documentation_url|delegate_payment_url|tokenize_url|permalink_url|pollUrl|downloadUrl)$/,
    (s) => url(s, 0),
  ],
  [/^formUrl$/, (s) => url(s, 3 * s.urlLength)],
  // confirm's `next`: one sentence (under 300 characters) around pollUrl.
  [/^next$/, (s) => ({ maxLength: url(s, 300).maxLength })],
];

const url = (s: Sources, extra: number) => ({ maxLength: s.urlLength + 100 + ID + extra });

/**
 * Response fields no rule bounds, and why, by name or as `tool.field`: none. Every list a response carries is a page or
 * capped by the domain (src/domain/limits.ts), and every string has a bound; a new field needs a rule above or a bound
 * in its schema (test/rest/openapi-owasp.test.ts), and `test/rest/limits.test.ts` keeps this table empty.
 */
export const UNBOUNDED: Readonly<Record<string, string>> = {};

/** Every input field's bound by name across the tools (the largest where names repeat); unbounded ones left out. */
function inputBounds(tools: readonly AnyTool[]): Map<string, Bound> {
  const found = new Map<string, Bound | null>();
  const visit = (s: unknown, name: string): void => {
    if (typeof s !== 'object' || s === null) return;
    const node = s as JsonSchema;
    for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(node[k])) for (const b of node[k]) visit(b, name);
    const key = node.type === 'string' ? 'maxLength' : node.type === 'array' ? 'maxItems' : undefined;
    if (key && node.enum === undefined && node.const === undefined) {
      const value = node[key];
      const before = found.get(name);
      if (typeof value !== 'number' || before === null) found.set(name, null);
      else found.set(name, { [key]: Math.max(value, before?.[key] ?? 0) });
    }
    if (node.items) visit(node.items, `${name}[]`);
    for (const k of ['propertyNames', 'additionalProperties']) visit(node[k], `${name}.${k}`);
    for (const [prop, sub] of Object.entries((node.properties ?? {}) as Record<string, unknown>)) visit(sub, prop);
  };
  for (const tool of tools) visit(toolInputSchema(tool), '');
  return new Map([...found].filter((e): e is [string, Bound] => e[1] !== null));
}

/**
 * Adds `format` to every integer schema anywhere in `doc` (parameters, headers, bodies): int32 when its minimum and
 * maximum fit, else int64. Examples are left as they are.
 */
export function withIntegerFormats<T>(doc: T): T {
  if (Array.isArray(doc)) return doc.map((v: unknown) => withIntegerFormats(v)) as T;
  if (typeof doc !== 'object' || doc === null) return doc;
  const node = Object.fromEntries(
    Object.entries(doc).map(([k, v]) => [k, k === 'example' || k === 'examples' ? v : withIntegerFormats(v)]),
  );
  if (node.type !== 'integer' || node.format !== undefined) return node as T;
  const fits = typeof node.minimum === 'number' && typeof node.maximum === 'number';
  const int32 = fits && (node.minimum as number) >= -INT32 && (node.maximum as number) < INT32;
  return { ...node, format: int32 ? 'int32' : 'int64' } as T;
}

/** Rewrites a response schema: every string and array bounded as the module header says, where a bound is known. */
export type ResponseBounder = (schema: unknown, tool: string) => unknown;

/** The projection of response schemas for `tools`, in a document served at `serverUrl`. */
export function responseBounds(tools: readonly AnyTool[], serverUrl: string): ResponseBounder {
  const inputs = inputBounds(tools);
  const sources: Sources = {
    input: (name) => inputs.get(name)?.maxLength ?? 0,
    inputItems: (name) => inputs.get(name)?.maxItems ?? 0,
    urlLength: serverUrl.length,
  };
  return (schema, tool) =>
    rewrite(schema, '', (node, name) => {
      const key = node.type === 'string' ? 'maxLength' : node.type === 'array' ? 'maxItems' : undefined;
      if (!key || node[key] !== undefined || node.enum !== undefined || node.const !== undefined) return node;
      if (Object.hasOwn(UNBOUNDED, `${tool}.${name}`)) return node;
      const bounds = FIELD_BOUNDS.filter(([re]) => re.test(name)).map(([, rule]) => rule(sources, name));
      const stored = key === 'maxLength' ? inputs.get(name) : undefined;
      if (stored) bounds.push(stored);
      const max = Math.max(0, ...bounds.map((b) => b[key] ?? 0));
      if (max === 0) return node;
      const format = bounds.find((b) => b.format)?.format;
      return { ...node, [key]: max, ...(format && node.format === undefined && { format }) };
    });
}

/** Rebuilds `schema` bottom up through `fix`, naming each node after its property (`name[]` for an array's items). */
function rewrite(schema: unknown, name: string, fix: (node: JsonSchema, name: string) => JsonSchema): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema as JsonSchema)) {
    if (k === 'properties' && typeof v === 'object' && v !== null) {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, rewrite(s, p, fix)]));
    } else if (k === 'items' || k === 'additionalProperties' || k === 'propertyNames') {
      out[k] = rewrite(v, k === 'items' ? `${name}[]` : `${name}.${k}`, fix);
    } else if ((k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'prefixItems') && Array.isArray(v)) {
      out[k] = v.map((s) => rewrite(s, name, fix));
    } else out[k] = v;
  }
  return fix(out, name);
}
