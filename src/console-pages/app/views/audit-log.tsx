/**
 * Audit log (read-only): every write by a console user or an API key in the organization, newest first, paged by the
 * server; filtered by who (a user or key id), which operation, and a date range.
 */
import { useState } from 'preact/hooks';
import { OPERATIONS, type ListAuditLogOutput } from '@tessera/sdk';
import { useCursorPages } from '../kit/cursor-pages.ts';
import { DataTable, type Column } from '../kit/data-table.tsx';
import { dayAfter, dayStart } from '../kit/days.ts';
import { EmptyState } from '../kit/empty-state.tsx';
import { SelectField, TextField } from '../kit/field.tsx';
import { when } from '../kit/format.ts';
import { Loaded, useLoad } from '../kit/load.tsx';
import { PageHeader } from '../kit/page-header.tsx';
import { t } from '../i18n.ts';
import { useSession } from '../session.tsx';
import type { ViewDef } from '../view.ts';

type Entry = ListAuditLogOutput['entries'][number];
interface Filters {
  actor: string;
  tool: string;
  from: string;
  to: string;
}
const NONE: Filters = { actor: '', tool: '', from: '', to: '' };
const PAGE = 25;

/** The operations that write (the audit log records only those), by name. */
const WRITES = (Object.keys(OPERATIONS) as (keyof typeof OPERATIONS)[])
  .filter((op) => OPERATIONS[op].method !== 'GET')
  .sort();

function AuditLog() {
  const { client, me, isOwner } = useSession();
  const [draft, setDraft] = useState<Filters>(NONE);
  const [applied, setApplied] = useState<Filters>(NONE);
  const pages = useCursorPages();
  const log = useLoad(() => {
    const from = dayStart(applied.from);
    const to = dayAfter(applied.to);
    return client.call('list_audit_log', {
      limit: PAGE,
      ...(applied.actor ? { actor: applied.actor } : {}),
      ...(applied.tool ? { tool: applied.tool } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
      ...pages.cursor,
    });
  }, [client, applied, pages.page]);
  // Whose writes to show: me, each teammate (an owner sees the team), each API key.
  const actors = useLoad(async () => {
    const keys = (await client.call('list_api_keys')).apiKeys;
    const members = isOwner ? (await client.call('list_team')).members : [];
    return { keys, members };
  }, [client, isOwner]);
  const actorOptions: (readonly [string, string])[] = [
    ['', t('views.audit.anyone')],
    ...(me ? [[me.userId, t('views.audit.me', { email: me.email })] as const] : []),
    ...(actors.data?.members ?? []).filter((p) => p.userId !== me?.userId).map((p) => [p.userId, p.email] as const),
    ...(actors.data?.keys ?? []).map(
      (k) => [k.id, t('views.audit.keyOption', { name: k.name, prefix: k.tokenPrefix })] as const,
    ),
  ];
  const columns: Column<Entry>[] = [
    { key: 'at', label: t('views.audit.at'), render: (e) => when(e.at) },
    {
      key: 'who',
      label: t('views.audit.who'),
      render: (e) =>
        e.actorKind === 'api_key'
          ? t('views.audit.byKey', { key: e.keyName ?? e.keyId ?? '', person: e.email ?? t('views.audit.nobody') })
          : (e.email ?? e.userId ?? ''),
    },
    { key: 'tool', label: t('views.audit.tool'), render: (e) => <code>{e.tool}</code> },
    {
      key: 'targets',
      label: t('views.audit.targets'),
      render: (e) => (
        <span class="ids">
          {e.targetIds.map((id) => (
            <code key={id}>{id} </code>
          ))}
        </span>
      ),
    },
    { key: 'surface', label: t('views.audit.surface'), render: (e) => t(`views.audit.surfaces.${e.surface}`) },
    { key: 'request', label: t('views.audit.request'), render: (e) => (e.requestId ? <code>{e.requestId}</code> : '') },
  ];
  const apply = (e: Event) => {
    e.preventDefault();
    setApplied(draft);
    pages.reset();
  };
  return (
    <>
      <PageHeader title={t('views.audit.title')} intro={t('views.audit.intro')} />
      <form noValidate onSubmit={apply} class="filters" aria-labelledby="audit-filters">
        <h2 id="audit-filters">{t('views.audit.filters')}</h2>
        <SelectField
          id="audit-actor"
          label={t('views.audit.actor')}
          value={draft.actor}
          onValue={(actor) => setDraft((d) => ({ ...d, actor }))}
          options={actorOptions}
        />
        <SelectField
          id="audit-tool"
          label={t('views.audit.tool')}
          value={draft.tool}
          onValue={(tool) => setDraft((d) => ({ ...d, tool }))}
          options={[['', t('views.audit.anyTool')], ...WRITES.map((op) => [op, op] as const)]}
        />
        <TextField
          id="audit-from"
          type="date"
          label={t('views.audit.from')}
          value={draft.from}
          onValue={(from) => setDraft((d) => ({ ...d, from }))}
        />
        <TextField
          id="audit-to"
          type="date"
          label={t('views.audit.to')}
          value={draft.to}
          onValue={(to) => setDraft((d) => ({ ...d, to }))}
        />
        <button type="submit" class="primary">
          {t('views.audit.apply')}
        </button>
      </form>
      <Loaded of={log}>
        {(d) => (
          <DataTable
            caption={t('views.audit.caption')}
            columns={columns}
            rows={d.entries}
            rowKey={(e) => e.id}
            empty={<EmptyState>{t('views.audit.empty')}</EmptyState>}
            pager={pages.pager(d.nextCursor)}
          />
        )}
      </Loaded>
    </>
  );
}

export const auditLogView: ViewDef = {
  id: 'audit-log',
  path: '/console/audit-log',
  title: 'views.audit.title',
  component: AuditLog,
  nav: 'organization',
};
