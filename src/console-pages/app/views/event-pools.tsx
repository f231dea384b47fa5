/** An event's pools: sold, held and available places; changing a pool's capacity; adding a pool. */
import { useState } from 'preact/hooks';
import { FormProblems } from '../api.ts';
import { DataTable } from '../kit/data-table.tsx';
import { EmptyState } from '../kit/empty-state.tsx';
import { Feedback, useAction } from '../kit/feedback.tsx';
import { SelectField, TextField } from '../kit/field.tsx';
import { useForm } from '../kit/form.ts';
import { count } from '../kit/format.ts';
import { t } from '../i18n.ts';
import { useSession, type Shop } from '../session.tsx';

export interface PoolRow {
  id: string;
  title: string;
  capacity: number;
  available: number;
  sold: number;
  held: number;
}

/** A whole number of at least `min` from a field's text, or undefined. */
const wholeOf = (text: string, min: number) => {
  const n = Number(text);
  return text.trim() !== '' && Number.isInteger(n) && n >= min ? n : undefined;
};

export function Pools(p: { shop: Shop; eventId: string; pools: PoolRow[]; cancelled: boolean; onChanged: () => void }) {
  const { isOwner } = useSession();
  return (
    <section class="panel-section" aria-labelledby="pools-title">
      <h2 id="pools-title">{t('views.pools.title')}</h2>
      <DataTable
        caption={t('views.pools.caption')}
        rows={p.pools}
        rowKey={(r) => r.id}
        empty={<EmptyState>{t('views.pools.none')}</EmptyState>}
        columns={[
          { key: 'title', label: t('views.pools.name'), sortBy: (r) => r.title, render: (r) => r.title },
          {
            key: 'capacity',
            label: t('views.pools.capacity'),
            numeric: true,
            sortBy: (r) => r.capacity,
            render: (r) => count(r.capacity),
          },
          {
            key: 'sold',
            label: t('views.pools.sold'),
            numeric: true,
            sortBy: (r) => r.sold,
            render: (r) => count(r.sold),
          },
          {
            key: 'held',
            label: t('views.pools.held'),
            numeric: true,
            sortBy: (r) => r.held,
            render: (r) => count(r.held),
          },
          {
            key: 'available',
            label: t('views.pools.available'),
            numeric: true,
            sortBy: (r) => r.available,
            render: (r) => count(r.available),
          },
        ]}
      />
      {isOwner && !p.cancelled ? (
        <>
          {p.pools.length ? <ChangeCapacity pools={p.pools} onChanged={p.onChanged} /> : null}
          <CreatePool shop={p.shop} eventId={p.eventId} onChanged={p.onChanged} />
        </>
      ) : null}
    </section>
  );
}

function ChangeCapacity({ pools, onChanged }: { pools: PoolRow[]; onChanged: () => void }) {
  const { client } = useSession();
  const [poolId, setPoolId] = useState(pools[0]!.id);
  const [capacity, setCapacity] = useState('');
  const save = useAction();
  const form = useForm({ capacity: 'pool-capacity', 'code:capacity_below_committed': 'pool-capacity' });
  const pool = pools.find((x) => x.id === poolId) ?? pools[0]!;
  return (
    <form
      novalidate
      aria-labelledby="change-capacity-title"
      onSubmit={(e) => {
        e.preventDefault();
        void form.submit(save, async () => {
          const n = wholeOf(capacity, 0);
          if (n === undefined) throw new FormProblems({ 'pool-capacity': t('views.pools.badCapacity') });
          if (n < pool.sold + pool.held)
            throw new FormProblems({
              'pool-capacity': t('views.pools.belowCommitted', { count: pool.sold + pool.held }),
            });
          await client.call('update_pool', { id: pool.id, capacity: n });
          setCapacity('');
          onChanged();
          return t('views.pools.capacitySaved', { title: pool.title, capacity: count(n) });
        });
      }}
    >
      <h3 id="change-capacity-title">{t('views.pools.change')}</h3>
      <div class="form-grid">
        <SelectField
          id="pool-select"
          label={t('views.pools.which')}
          options={pools.map((x) => [x.id, x.title] as const)}
          value={poolId}
          onValue={setPoolId}
        />
        <TextField
          id="pool-capacity"
          type="number"
          min={pool.sold + pool.held}
          step={1}
          label={t('views.pools.newCapacity')}
          hint={t('views.pools.capacityHint', { count: pool.sold + pool.held })}
          required
          value={capacity}
          onValue={setCapacity}
          error={form.errors['pool-capacity']}
        />
      </div>
      <div class="actions">
        <button type="submit" aria-busy={save.busy ? 'true' : undefined}>
          {t('views.pools.saveCapacity')}
        </button>
        <Feedback of={save} />
      </div>
    </form>
  );
}

function CreatePool({ shop, eventId, onChanged }: { shop: Shop; eventId: string; onChanged: () => void }) {
  const { client } = useSession();
  const [title, setTitle] = useState('');
  const [capacity, setCapacity] = useState('');
  const create = useAction();
  const form = useForm({ title: 'new-pool-title', capacity: 'new-pool-capacity' });
  return (
    <form
      novalidate
      aria-labelledby="create-pool-title"
      onSubmit={(e) => {
        e.preventDefault();
        void form.submit(create, async () => {
          const n = wholeOf(capacity, 1);
          const problems: Record<string, string> = {};
          if (!title.trim()) problems['new-pool-title'] = t('views.pools.needName');
          if (n === undefined) problems['new-pool-capacity'] = t('views.pools.badCapacity');
          if (Object.keys(problems).length) throw new FormProblems(problems);
          await client.call('create_pool', { merchantId: shop.id, eventId, title: title.trim(), capacity: n! });
          setTitle('');
          setCapacity('');
          onChanged();
          return t('views.pools.created', { title: title.trim() });
        });
      }}
    >
      <h3 id="create-pool-title">{t('views.pools.create')}</h3>
      <div class="form-grid">
        <TextField
          id="new-pool-title"
          label={t('views.pools.name')}
          required
          maxLength={200}
          value={title}
          onValue={setTitle}
          error={form.errors['new-pool-title']}
        />
        <TextField
          id="new-pool-capacity"
          type="number"
          min={1}
          step={1}
          label={t('views.pools.capacity')}
          required
          value={capacity}
          onValue={setCapacity}
          error={form.errors['new-pool-capacity']}
        />
      </div>
      <div class="actions">
        <button type="submit" aria-busy={create.busy ? 'true' : undefined}>
          {t('views.pools.createButton')}
        </button>
        <Feedback of={create} />
      </div>
    </form>
  );
}
