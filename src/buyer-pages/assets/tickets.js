// "My tickets": the buyer's orders, newest first, each ticket with its QR code (an SVG data: image the API renders,
// encoding the signed ticket code) and its state: valid, checked in, or void (refunded: no QR, it no longer admits).
import { api, current } from './api.js';
import { formatEventTime } from './event-time.js';
import { lang, t } from './i18n.js';
import { byId, el, errorMessage, formatDate, run, showErrors } from './ui.js';

const formatDateTime = (iso) =>
  new Intl.DateTimeFormat(lang(), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

export async function init() {
  if (!current()) return;
  const list = byId('tickets-orders');
  const more = byId('tickets-more');
  let cursor;

  function ticketItem(order, ticket, n) {
    const label = t('tickets.ticketLabel', { n });
    const item = el('li', {
      className: `ticket ticket-${ticket.status}`,
      'data-ticket-id': ticket.id,
      'data-status': ticket.status,
    });
    if (ticket.qrImage) {
      item.append(
        el('img', {
          className: 'qr',
          src: ticket.qrImage,
          width: 200,
          height: 200,
          alt: t('tickets.qrAlt', { n, event: order.eventTitle }),
          'data-qr-content': ticket.qrContent,
        }),
      );
    }
    const state = el('span', {
      className: `badge badge-ticket-${ticket.status}`,
      text: t(`tickets.status.${ticket.status}`),
    });
    item.append(el('p', { className: 'ticket-title' }, el('strong', { text: label }), ' ', state));
    if (ticket.tierName) item.append(el('p', { className: 'ticket-tier', text: ticket.tierName })); // several tiers
    if (ticket.attendeeName)
      item.append(
        el('p', { className: 'ticket-attendee', text: t('tickets.attendee', { name: ticket.attendeeName }) }),
      );
    if (ticket.status === 'checked_in')
      item.append(el('p', { text: t('tickets.checkedInAt', { date: formatDateTime(ticket.checkedInAt) }) }));
    if (ticket.status === 'void')
      item.append(el('p', { text: t('tickets.voidNote', { date: formatDate(ticket.voidedAt) }) }));
    item.append(el('p', { className: 'muted small', text: ticket.id }));
    return item;
  }

  /**
   * The order's "download" button: asks for its links (get_ticket_downloads), starts the PDF download, and adds each
   * ticket's wallet links when the shop offers them.
   */
  function downloadButton(order, card) {
    if (!order.tickets.some((x) => x.status !== 'void')) return null;
    const button = el('button', { type: 'button', className: 'secondary', text: t('tickets.files.button') });
    button.addEventListener(
      'click',
      () =>
        void run(button, async () => {
          const d = await api(
            'GET',
            `/v1/ticketing/orders/${encodeURIComponent(order.orderId)}/downloads?lang=${lang()}`,
          );
          for (const x of d.tickets) {
            const item = card.querySelector(`[data-ticket-id="${CSS.escape(x.ticketId)}"]`);
            if (!item || item.querySelector('.wallet')) continue;
            const links = [
              x.appleWalletUrl ? el('a', { href: x.appleWalletUrl, text: t('tickets.files.apple') }) : null,
              x.googleWalletUrl ? el('a', { href: x.googleWalletUrl, text: t('tickets.files.google') }) : null,
            ].filter(Boolean);
            if (links.length) item.append(el('p', { className: 'wallet actions' }, ...links));
          }
          if (d.pdf) window.location.assign(d.pdf.url);
        }),
    );
    return el('div', { className: 'actions' }, button);
  }

  /**
   * The order's "receipt and invoices" button: asks for its documents (get_invoice) and lists a PDF link for each (the
   * receipt, and the invoice and credit notes when the shop invoices), in the order's language.
   */
  function documentsButton(order) {
    const button = el('button', { type: 'button', className: 'secondary', text: t('tickets.documents.button') });
    const links = el('p', { className: 'documents actions' });
    button.addEventListener(
      'click',
      () =>
        void run(button, async () => {
          const d = await api('GET', `/v1/ticketing/orders/${encodeURIComponent(order.orderId)}/invoices`);
          links.replaceChildren(
            ...d.documents.map((x) =>
              el('a', { href: x.downloadUrl, text: t(`tickets.documents.${x.kind}`, { number: x.number ?? '' }) }),
            ),
          );
        }),
    );
    return el('div', { className: 'actions' }, button, links);
  }

  function orderCard(order) {
    const card = orderCardBody(order);
    card.append(downloadButton(order, card) ?? '', documentsButton(order));
    return card;
  }

  function orderCardBody(order) {
    const titleId = `order-${order.orderId}-title`;
    return el(
      'article',
      { className: 'panel order', 'aria-labelledby': titleId, 'data-order-id': order.orderId },
      el('h3', { id: titleId, text: order.eventTitle }),
      el('p', {
        text: t('tickets.orderMeta', {
          date: formatEventTime(order.eventStartsAt, order.eventTimeZone),
          // An order of several tiers names each with its places (`2 × Adult, 1 × Child`).
          tier: order.lines ? order.lines.map((l) => `${l.quantity} × ${l.tierName}`).join(', ') : order.tierName,
          shop: order.shopName,
        }),
      }),
      order.eventVenue ? el('p', { text: order.eventVenue }) : null,
      el(
        'ul',
        { className: 'tickets', 'aria-label': t('tickets.ticketsOf', { event: order.eventTitle }) },
        ...order.tickets.map((x, i) => ticketItem(order, x, i + 1)),
      ),
      el('p', {
        className: 'muted small',
        text: t('tickets.orderLine', { id: order.orderId, date: formatDate(order.createdAt) }),
      }),
    );
  }

  async function load() {
    const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
    const page = await api('GET', `/v1/buyer/tickets${query}`);
    list.append(...page.orders.map(orderCard));
    cursor = page.nextCursor;
    more.hidden = !cursor;
    byId('tickets-empty').hidden = list.childElementCount > 0;
  }

  more.addEventListener('click', () => void run(more, load));
  try {
    await load();
  } catch (err) {
    showErrors([{ message: errorMessage(err) }]);
  }
}
