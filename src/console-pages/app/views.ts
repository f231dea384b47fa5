/**
 * The registry of console views: one line per view, in sidebar order. A view's file exports its `ViewDef`; the shell
 * routes, titles, guards and lists views from this array alone.
 */
import type { ViewDef } from './view.ts';
import { acceptView, signInView, verifyView } from './views/sign-in.tsx';
import { overviewView } from './views/overview.tsx';
import { eventsView, eventView } from './views/events.tsx';
import { ordersView, orderView } from './views/orders.tsx';

export const VIEWS: readonly ViewDef[] = [
  signInView,
  verifyView,
  acceptView,
  overviewView,
  eventsView,
  eventView,
  ordersView,
  orderView,
];
