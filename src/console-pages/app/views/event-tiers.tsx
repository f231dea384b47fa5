/** An event's tiers: price, pool, the on-sale window and restrictions, places left; create, edit, retire. */
import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../kit/confirm-dialog.tsx';
import { DataTable } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { count, money, when } from '../kit/format.ts';
import { t } from '../i18n.ts';
import { useSession, type Shop } from '../session.tsx';
import type { PoolRow } from './event-pools.tsx';
import { TierForm, type Tier } from './tier-form.tsx';

export function Tiers(p: {
  shop: Shop;
  eventId: string;
  tiers: Tier[];
  pools: PoolRow[];
  cancelled: boolean;
  onChanged: () => void;
}) {
  const { client, isOwner } = useSession();
  const [editing, setEditing] = useState<Tier | null>(null);
  const [retiring, setRetiring] = useState<Tier | null>(null);
  const [said, setSaid] = useState('');
  const poolName = (id: string) => p.pools.find((x) => x.id === id)?.title ?? id;
  const window = (tier: Tier) =>
    tier.onSaleStart || tier.onSaleEnd
      ? t('views.tiers.window', { from: when(tier.onSaleStart) || '…', to: when(tier.onSaleEnd) || '…' })
      : t('views.tiers.always');
  const rules = (tier: Tier) =>
    [
      tier.maxQtyPerPurchase ? t('views.tiers.maxShort', { count: tier.maxQtyPerPurchase }) : '',
      tier.sellable ? '' : t('views.tiers.notSellable'),
      tier.allowedGeos.length ? t('views.tiers.geosShort', { list: tier.allowedGeos.join(', ') }) : '',
      tier.allowedSchemes.length ? t('views.tiers.schemesShort', { list: tier.allowedSchemes.join(', ') }) : '',
    ]
      .filter(Boolean)
      .join('; ') || t('views.tiers.none');
  const writable = isOwner && !p.cancelled;
  return (
    <section class="panel-section" aria-labelledby="tiers-title">
      <h2 id="tiers-title">{t('views.tiers.title')}</h2>
      <DataTable
        caption={t('views.tiers.caption')}
        rows={p.tiers}
        rowKey={(r) => r.id}
        empty={<EmptyState>{t('views.tiers.empty')}</EmptyState>}
        columns={[
          { key: 'name', label: t('views.tiers.name'), sortBy: (r) => r.name, render: (r) => r.name },
          {
            key: 'price',
            label: t('views.tiers.priceShort'),
            numeric: true,
            sortBy: (r) => r.priceMinor,
            render: (r) => money(r.priceMinor, r.currency),
          },
          {
            key: 'pool',
            label: t('views.tiers.pool'),
            sortBy: (r) => poolName(r.poolId),
            render: (r) => poolName(r.poolId),
          },
          { key: 'window', label: t('views.tiers.onSale'), render: window },
          { key: 'rules', label: t('views.tiers.restrictions'), render: rules },
          {
            key: 'left',
            label: t('views.tiers.left'),
            numeric: true,
            sortBy: (r) => r.availableCount,
            render: (r) => count(r.availableCount),
          },
          {
            key: 'state',
            label: t('views.tiers.state'),
            sortBy: (r) => (r.retiredAt ? 1 : 0),
            render: (r) => (r.retiredAt ? t('views.tiers.retired') : t('views.tiers.active')),
          },
          ...(writable
            ? [
                {
                  key: 'actions',
                  label: t('views.tiers.actions'),
                  hiddenLabel: true,
                  render: (r: Tier) =>
                    r.retiredAt ? null : (
                      <div class="actions">
                        <button type="button" class="secondary" onClick={() => setEditing(r)}>
                          {t('views.tiers.editButton', { name: r.name })}
                        </button>
                        <button type="button" class="danger" onClick={() => setRetiring(r)}>
                          {t('views.tiers.retire', { name: r.name })}
                        </button>
                      </div>
                    ),
                },
              ]
            : []),
        ]}
      />
      <p class="feedback" role="status" aria-live="polite">
        {said}
      </p>
      {writable && editing ? (
        <TierForm
          key={editing.id}
          prefix="edit-tier"
          eventId={p.eventId}
          currency={editing.currency}
          tier={editing}
          onSaved={(message) => {
            setEditing(null);
            setSaid(message);
            p.onChanged();
          }}
          onCancel={() => setEditing(null)}
        />
      ) : null}
      {writable && p.pools.length ? (
        <TierForm
          prefix="new-tier"
          eventId={p.eventId}
          currency={p.shop.currency}
          pools={p.pools.map((x) => [x.id, x.title] as const)}
          onSaved={() => p.onChanged()}
        />
      ) : writable ? (
        <p>{t('views.tiers.poolFirst')}</p>
      ) : null}
      <ConfirmDialog
        open={retiring !== null}
        id="retire-tier"
        title={t('views.tiers.retireTitle', { name: retiring?.name ?? '' })}
        confirmLabel={t('views.tiers.retireConfirm')}
        danger
        onConfirm={async () => {
          await client.call('retire_tier', { id: retiring!.id });
          return t('views.tiers.retiredDone', { name: retiring!.name });
        }}
        onClose={(ok, message) => {
          setRetiring(null);
          if (ok) {
            setSaid(message);
            p.onChanged();
          }
        }}
      >
        <p>{t('views.tiers.retireBody')}</p>
      </ConfirmDialog>
    </section>
  );
}
