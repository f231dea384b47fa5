/**
 * The registry of console views: one line per view, in sidebar order. A view's file exports its `ViewDef`; the shell
 * routes, titles, guards and lists views from this array alone.
 */
import type { ViewDef } from './view.ts';
import { acceptView, signInView, verifyView } from './views/sign-in.tsx';
import { overviewView } from './views/overview.tsx';
import { eventsView, eventView } from './views/events.tsx';
import { ordersView, orderView } from './views/orders.tsx';
import { checkInView } from './views/check-in.tsx';
import { waitingListView } from './views/waiting-list.tsx';
import { discountCodesView } from './views/discount-codes.tsx';
import { exportsView } from './views/exports.tsx';
import { webhooksView, webhookView } from './views/webhooks.tsx';
import { embedOriginsView } from './views/embed-origins.tsx';
import { paymentProviderView } from './views/payment-provider.tsx';
import { walletPassesView } from './views/wallet-passes.tsx';
import { taxSettingsView } from './views/tax-settings.tsx';
import { shopsView } from './views/shops.tsx';
import { apiKeysView } from './views/api-keys.tsx';
import { teamView } from './views/team.tsx';
import { attestedConsentView } from './views/attested-consent.tsx';
import { auditLogView } from './views/audit-log.tsx';

export const VIEWS: readonly ViewDef[] = [
  signInView,
  verifyView,
  acceptView,
  overviewView,
  eventsView,
  eventView,
  ordersView,
  orderView,
  checkInView,
  waitingListView,
  discountCodesView,
  exportsView,
  webhooksView,
  webhookView,
  embedOriginsView,
  paymentProviderView,
  walletPassesView,
  taxSettingsView,
  shopsView,
  apiKeysView,
  teamView,
  attestedConsentView,
  auditLogView,
];
