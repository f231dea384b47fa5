/**
 * "My tickets": the signed-in buyer's orders with their tickets, each ticket's QR code and state (filled in by
 * assets/tickets.js).
 */
import { html } from './html.ts';
import type { PageDefinition } from './layout.ts';
import { account } from './pages-account.ts';

export const ticketsPage: PageDefinition = {
  id: 'tickets',
  path: '/buyer/tickets',
  titleKey: 'tickets.title',
  body(ctx) {
    const { t } = ctx;
    return account(
      ctx,
      html`<p class="intro">${t('tickets.intro')}</p>
<section aria-labelledby="tickets-list-title">
  <h2 id="tickets-list-title" tabindex="-1">${t('tickets.listTitle')}</h2>
  <p id="tickets-empty" hidden>${t('tickets.empty')}</p>
  <div id="tickets-orders" class="stack"></div>
  <div class="actions"><button type="button" id="tickets-more" class="secondary" hidden>${t('tickets.more')}</button></div>
</section>`,
    );
  },
};
