/** What a console view declares (its URL, title, component, who may open it) and the links between views. */
import type { ComponentType } from 'preact';
import type { Shop } from './session.tsx';

/** What the shell hands a view: the URL's parameters and query, and the selected shop on shop views. */
export interface ViewProps {
  params: Record<string, string>;
  query: Record<string, string>;
  /** The shop named by `:shopId` in the URL (shop views only; the shell answers 404 for another's shop). */
  shop: Shop | undefined;
}

export interface ViewDef {
  /** A stable id (tests and `data-view` on <main>). */
  id: string;
  /**
   * The URL pattern (preact-iso syntax): `/console/shops/:shopId/orders` for a shop's view, `/console/team` for the
   * organization's, `/console/shops/:shopId/orders/:orderId` for a detail page.
   */
  path: string;
  /** The catalog key of the title: the sidebar entry, the document title, the h1 the view shows (PageHeader). */
  title: string;
  component: ComponentType<ViewProps>;
  /** Where the sidebar lists it: under the selected shop, under the organization, or not at all (detail pages). */
  nav: 'shop' | 'organization' | false;
  /** Only an owner may open it (an integrator gets the not-found view and no sidebar entry). */
  ownerOnly?: boolean;
  /** Open without a session (sign-in, the e-mailed links). */
  public?: boolean;
}

/** The path of `pattern` with its parameters filled in (each encoded). */
export function pathOf(pattern: string, params: Record<string, string>): string {
  return pattern.replace(/:(\w+)[?*+]?/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** The URL of a shop's view, e.g. `shopPath('shop_1', 'orders', 'ord_2')` → `/console/shops/shop_1/orders/ord_2`. */
export function shopPath(shopId: string, ...segments: string[]): string {
  return ['/console/shops', encodeURIComponent(shopId), ...segments.map(encodeURIComponent)].join('/');
}
