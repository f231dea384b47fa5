/**
 * The page a waiting-list offer's e-mail links to (`/buyer/offer?reservation=rsv_…`): the signed-in buyer sees the
 * places held for them (event, tier, places, amount, until when) and pays with a saved card of the shop, or declines
 * the offer, which releases the hold so it passes to the next in line (filled in by assets/offer.js).
 */
import { selectField } from './components.ts';
import { html } from './html.ts';
import type { PageDefinition } from './layout.ts';
import { account } from './pages-account.ts';

export const offerPage: PageDefinition = {
  id: 'offer',
  path: '/buyer/offer',
  titleKey: 'offer.title',
  body(ctx) {
    const { t } = ctx;
    return account(
      ctx,
      html`<p class="intro">${t('offer.intro')}</p>
<p id="offer-missing" class="notice" hidden>${t('offer.missing')}</p>
<section id="offer-details" aria-labelledby="offer-heading" hidden>
  <h2 id="offer-heading" tabindex="-1"></h2>
  <ul>
    <li id="offer-places"></li>
    <li id="offer-amount"></li>
    <li id="offer-until"></li>
  </ul>
  <p id="offer-state" class="notice" tabindex="-1" hidden></p>
  <p id="offer-no-cards" class="notice" hidden>${t('offer.noCards')} <a href="${ctx.href('/buyer/cards')}">${t('nav.cards')}</a></p>
  <form id="offer-form" class="stack" novalidate hidden>
    ${selectField({ id: 'offer-card', label: t('offer.cardLabel') })}
    <div class="actions"><button type="submit" id="offer-pay"></button> <button type="button" id="offer-decline" class="secondary">${t('offer.decline')}</button></div>
  </form>
  <p id="offer-tickets" hidden><a href="${ctx.href('/buyer/tickets')}">${t('nav.tickets')}</a></p>
</section>`,
    );
  },
};
