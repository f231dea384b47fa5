/** Paging through a server's list by cursor, for a `DataTable` with a `pager`: back and forth over the pages seen. */
import { useState } from 'preact/hooks';
import type { Pager } from './data-table.tsx';

/** The page shown and how to get the others; `reset()` goes back to the first (e.g. when the filters change). */
export interface CursorPages {
  /** 0 for the first page. */
  page: number;
  /** `{ cursor }` for the page shown (nothing for the first), to spread into the list call. */
  cursor: { cursor?: string };
  reset(): void;
  /** The table's pager, given the list's `nextCursor` (none on the last page). */
  pager(nextCursor: string | undefined): Pager;
}

/** Keeps the cursors of the pages seen so far: page n starts after cursors[n] (none for the first). */
export function useCursorPages(): CursorPages {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const page = cursors.length - 1;
  const at = cursors[page];
  return {
    page,
    cursor: at ? { cursor: at } : {},
    reset: () => setCursors([undefined]),
    pager: (nextCursor) => ({
      page,
      hasPrevious: page > 0,
      hasNext: nextCursor !== undefined,
      onPrevious: () => setCursors((c) => c.slice(0, -1)),
      onNext: () => setCursors((c) => [...c, nextCursor]),
    }),
  };
}
