/**
 * The one data table: a caption, sortable columns (a button in each sortable header, `aria-sort` on it), and paging,
 * either of the rows it holds (`pageSize`) or of a server's list (`pager`). Under 48rem each row shows as a card whose
 * cells carry their column's name, so no view scrolls sideways.
 */
import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { t } from '../i18n.ts';

export interface Column<Row> {
  /** Unique in the table. */
  key: string;
  /** The header's text. */
  label: string;
  /** The cell's content. */
  render: (row: Row) => ComponentChildren;
  /** The value this column sorts by; absent: the column does not sort. */
  sortBy?: (row: Row) => string | number;
  /** Numbers and money align right. */
  numeric?: boolean;
  /** The header is read by screen readers only (an actions column). */
  hiddenLabel?: boolean;
}

/** A server's list, paged by the view: the table shows Previous / Next and calls back. */
export interface Pager {
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
}

export interface DataTableProps<Row> {
  /** Names the table (the caption, shown). */
  caption: string;
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  /** Rows per page when the table pages its own rows (default 20). */
  pageSize?: number;
  /** The server pages instead. */
  pager?: Pager;
  /** Shown instead of the table when there are no rows. */
  empty: ComponentChildren;
  /** The initial sort. */
  initialSort?: { key: string; dir: 'ascending' | 'descending' };
  /**
   * The server sorts (with `pager`): the table shows `sort` and calls `onSort` when a sortable header is pressed,
   * instead of sorting the rows it holds.
   */
  serverSort?: { sort: Sort; onSort: (sort: Sort) => void };
}

export interface Sort {
  key: string;
  dir: 'ascending' | 'descending';
}

export function DataTable<Row>(props: DataTableProps<Row>) {
  const { columns, rows, pager } = props;
  const [localSort, setSort] = useState(props.initialSort);
  const sort = props.serverSort?.sort ?? localSort;
  const [page, setPage] = useState(0);
  const size = props.pageSize ?? 20;
  const sorted = useMemo(() => {
    const col = sort && columns.find((c) => c.key === sort.key);
    if (props.serverSort || !sort || !col?.sortBy) return rows;
    const by = col.sortBy;
    const factor = sort.dir === 'ascending' ? 1 : -1;
    return [...rows].sort((a, b) => {
      const x = by(a);
      const y = by(b);
      return (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y))) * factor;
    });
  }, [rows, columns, sort, props.serverSort]);
  if (!rows.length && !(pager && pager.page > 0))
    return (
      <div class="table-empty">
        <p class="table-caption">{props.caption}</p>
        {props.empty}
      </div>
    );
  const pages = pager ? 1 : Math.max(1, Math.ceil(sorted.length / size));
  const current = Math.min(page, pages - 1);
  const shown = pager ? sorted : sorted.slice(current * size, current * size + size);
  const toggle = (key: string) => {
    const next: Sort = { key, dir: sort?.key === key && sort.dir === 'ascending' ? 'descending' : 'ascending' };
    if (props.serverSort) props.serverSort.onSort(next);
    else setSort(next);
  };
  return (
    <div class="data-table">
      <table class="data">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th
                key={c.key}
                scope="col"
                class={c.numeric ? 'numeric' : undefined}
                aria-sort={c.sortBy ? (sort?.key === c.key ? sort.dir : 'none') : undefined}
              >
                {c.hiddenLabel ? (
                  <span class="visually-hidden">{c.label}</span>
                ) : c.sortBy ? (
                  <button type="button" class="sort" onClick={() => toggle(c.key)}>
                    {c.label}
                    <span aria-hidden="true" class="sort-mark">
                      {sort?.key === c.key ? (sort.dir === 'ascending' ? ' ▲' : ' ▼') : ' ↕'}
                    </span>
                  </button>
                ) : (
                  c.label
                )}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => (
            <tr key={props.rowKey(row)}>
              {columns.map((c) => (
                <td
                  key={c.key}
                  data-label={c.hiddenLabel ? undefined : c.label}
                  class={c.numeric ? 'numeric' : undefined}
                >
                  {c.render(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {pager ? (
        <Paging
          label={t('kit.table.pageOf', { page: pager.page + 1 })}
          hasPrevious={pager.hasPrevious}
          hasNext={pager.hasNext}
          onPrevious={pager.onPrevious}
          onNext={pager.onNext}
        />
      ) : pages > 1 ? (
        <Paging
          label={t('kit.table.pageOfTotal', { page: current + 1, pages, rows: sorted.length })}
          hasPrevious={current > 0}
          hasNext={current < pages - 1}
          onPrevious={() => setPage(current - 1)}
          onNext={() => setPage(current + 1)}
        />
      ) : null}
    </div>
  );
}

function Paging(p: {
  label: string;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
}) {
  return (
    <nav class="pager" aria-label={t('kit.table.paging')}>
      <button type="button" onClick={p.onPrevious} disabled={!p.hasPrevious}>
        {t('kit.table.previous')}
      </button>
      <span aria-live="polite">{p.label}</span>
      <button type="button" onClick={p.onNext} disabled={!p.hasNext}>
        {t('kit.table.next')}
      </button>
    </nav>
  );
}
