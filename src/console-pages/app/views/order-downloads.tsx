/**
 * An order's tickets to download, on the order's page: the PDF of its valid tickets (one page per ticket, the buyer's
 * language) from get_ticket_downloads' link, which starts the download at once.
 */
import type { GetOrderDetailOutput } from '@tessera/sdk';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';

/** The "Download the tickets (PDF)" section; nothing for an order without a valid ticket. */
export function TicketDownloads({ d }: { d: GetOrderDetailOutput }) {
  const { client } = useSession();
  const download = useAction();
  if (!d.order.tickets.some((x) => x.state === 'valid')) return null;
  return (
    <section class="panel-section" aria-labelledby="downloads-title">
      <h2 id="downloads-title">{t('views.ticketDownloads.title')}</h2>
      <p>{t('views.ticketDownloads.intro')}</p>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          aria-busy={download.busy ? 'true' : undefined}
          onClick={() =>
            void download.run(async () => {
              const r = await client.call('get_ticket_downloads', { id: d.order.id });
              if (r.pdf) window.location.assign(r.pdf.url);
              return t('views.ticketDownloads.started');
            })
          }
        >
          {t('views.ticketDownloads.button')}
        </button>
        <Feedback of={download} />
      </div>
    </section>
  );
}
