/**
 * Refunding an order, on the order's page: all or some of its valid tickets, with the amount from preview_refund shown
 * before confirming, and whether the places go back to the pool. docs/after-sale.md.
 */
import { useState } from 'preact/hooks';
import type { GetOrderDetailOutput, PreviewRefundOutput } from '@tessera/sdk';
import { FormProblems } from '../api.ts';
import { ChoiceGroup } from '../kit/choice-group.tsx';
import { ConfirmDialog } from '../kit/confirm-dialog.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { CheckboxField, TextField } from '../kit/field.tsx';
import { useForm } from '../kit/form.ts';
import { money } from '../kit/format.ts';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';

/** Refund all or some tickets: the amount comes from preview_refund and is shown in the confirmation. */
export function Refund({ d, reload }: { d: GetOrderDetailOutput; reload: () => Promise<void> }) {
  const { client, isOwner } = useSession();
  const refundable = d.order.tickets.filter((x) => x.state === 'valid');
  const [chosen, setChosen] = useState<string[]>([]);
  const [reason, setReason] = useState('');
  const [returnToPool, setReturnToPool] = useState(true);
  const [preview, setPreview] = useState<PreviewRefundOutput | null>(null);
  const [done, setDone] = useState('');
  const check = useAction();
  const form = useForm({
    reason: 'refund-reason',
    ticketIds: 'refund-tickets',
    'code:ticket_not_refundable': 'refund-tickets',
  });
  if (!isOwner || d.order.state === 'refunded' || !refundable.length) return null;
  const all = chosen.length === 0 || chosen.length === refundable.length;
  const ids = all ? undefined : (chosen as [string, ...string[]]);
  return (
    <section class="panel-section" aria-labelledby="refund-title">
      <h2 id="refund-title">{t('views.refund.title')}</h2>
      <form
        novalidate
        onSubmit={(e) => {
          e.preventDefault();
          void form.submit(check, async () => {
            if (!reason.trim()) throw new FormProblems({ 'refund-reason': t('views.refund.needReason') });
            setPreview(await client.call('preview_refund', { id: d.order.id, ...(ids ? { ticketIds: ids } : {}) }));
          });
        }}
      >
        <ChoiceGroup
          id="refund-tickets"
          legend={t('views.refund.which')}
          hint={t('views.refund.whichHint')}
          error={form.errors['refund-tickets']}
          choices={refundable.map((x) => ({ value: x.id, label: <code>{x.id}</code> }))}
          selected={chosen}
          onSelected={setChosen}
        />
        <TextField
          id="refund-reason"
          label={t('views.refund.reason')}
          required
          maxLength={500}
          value={reason}
          onValue={setReason}
          error={form.errors['refund-reason']}
        />
        <CheckboxField
          id="refund-return"
          label={t('views.refund.returnToPool')}
          hint={t('views.refund.returnHint')}
          checked={returnToPool}
          onChecked={setReturnToPool}
        />
        <div class="actions">
          <button type="submit" class="danger" aria-busy={check.busy ? 'true' : undefined}>
            {all ? t('views.refund.refundAll') : t('views.refund.refundSome', { count: chosen.length })}
          </button>
          <Feedback of={check} />
          <p class="feedback" role="status" aria-live="polite">
            {done}
          </p>
        </div>
      </form>
      <ConfirmDialog
        open={preview !== null}
        id="confirm-refund"
        title={t('views.refund.confirmTitle', { amount: preview ? money(preview.amountMinor, preview.currency) : '' })}
        confirmLabel={t('views.refund.confirm', {
          amount: preview ? money(preview.amountMinor, preview.currency) : '',
        })}
        danger
        onConfirm={async () => {
          const p = preview!;
          await client.call('refund_order', {
            id: d.order.id,
            reason: reason.trim(),
            returnToPool,
            ...(ids ? { ticketIds: ids } : {}),
          });
          return t('views.refund.done', { amount: money(p.amountMinor, p.currency) });
        }}
        onClose={(ok, message) => {
          setPreview(null);
          if (ok) {
            setDone(message);
            setChosen([]);
            void reload();
          }
        }}
      >
        {preview ? (
          <>
            <p>
              {t('views.refund.body', {
                count: preview.ticketIds.length,
                amount: money(preview.amountMinor, preview.currency),
              })}
            </p>
            <p>{t('views.refund.remaining', { amount: money(preview.remainingMinor, preview.currency) })}</p>
            <p>{returnToPool ? t('views.refund.placesBack') : t('views.refund.placesNotBack')}</p>
          </>
        ) : null}
      </ConfirmDialog>
    </section>
  );
}
