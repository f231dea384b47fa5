/**
 * An order's receipt, invoice and credit notes, on the order's page: get_invoice lists them with a PDF link each (the
 * buyer's language, 15 minutes), shown as links once asked for. docs/tax-and-invoices.md.
 */
import { useState } from 'preact/hooks';
import type { GetInvoiceOutput, GetOrderDetailOutput } from '@tessera/sdk';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';

/** The "Receipt and invoices" section of an order. */
export function OrderInvoices({ d }: { d: GetOrderDetailOutput }) {
  const { client } = useSession();
  const load = useAction();
  const [docs, setDocs] = useState<GetInvoiceOutput['documents']>([]);
  return (
    <section class="panel-section" aria-labelledby="invoices-title">
      <h2 id="invoices-title">{t('views.orderInvoices.title')}</h2>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          aria-busy={load.busy ? 'true' : undefined}
          onClick={() =>
            void load.run(async () => {
              setDocs((await client.call('get_invoice', { orderId: d.order.id })).documents);
              return '';
            })
          }
        >
          {t('views.orderInvoices.button')}
        </button>
        <Feedback of={load} />
      </div>
      {docs.length ? (
        <ul class="documents">
          {docs.map((x) => (
            <li key={x.downloadUrl}>
              <a href={x.downloadUrl}>{t(`views.orderInvoices.${x.kind}`, { number: x.number ?? '' })}</a>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
