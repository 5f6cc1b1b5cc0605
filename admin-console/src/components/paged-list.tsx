/** Loading a paged list, and the pager under it. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Page } from '../api/admin';
import { errorText } from './notice';

export interface PagedState<T> {
  page: Page<T> | null;
  error: string | null;
  loading: boolean;
  pageNumber: number;
  setPageNumber: (page: number) => void;
  reload: () => void;
}

/** `deps` are the filters: a change starts again from the first page. */
export function usePagedList<T>(load: (page: number) => Promise<Page<T>>, deps: unknown[]): PagedState<T> {
  const [pageNumber, setPageNumber] = useState(0);
  const [page, setPage] = useState<Page<T> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);

  useEffect(() => setPageNumber(0), deps);

  useEffect(() => {
    let current = true;
    setLoading(true);
    load(pageNumber).then(
      (result) => {
        if (!current) return;
        // A page emptied by the last action (e.g. its only item approved) falls back to the one before.
        if (result.content.length === 0 && pageNumber > 0) {
          setPageNumber(Math.max(0, Math.min(pageNumber - 1, result.totalPages - 1)));
          return;
        }
        setPage(result);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (!current) return;
        setError(errorText(err));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
    // `load` is rebuilt on every render; the filters in `deps` are what change it.
  }, [pageNumber, generation, ...deps]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { page, error, loading, pageNumber, setPageNumber, reload };
}

export function Pager({ state, label }: { state: PagedState<unknown>; label: string }) {
  const { page } = state;
  if (!page || page.totalPages <= 1) return null;
  return (
    <nav class="pager" aria-label={`${label} 페이지`}>
      <button type="button" disabled={page.first || state.loading} onClick={() => state.setPageNumber(page.number - 1)}>
        이전
      </button>
      <span class="pager-status">
        {page.number + 1} / {page.totalPages} 페이지 (총 {page.totalElements}건)
      </span>
      <button type="button" disabled={page.last || state.loading} onClick={() => state.setPageNumber(page.number + 1)}>
        다음
      </button>
    </nav>
  );
}

/** Loading, failure and emptiness of a list, in one place. */
export function ListStatus({ state, emptyText }: { state: PagedState<unknown>; emptyText: string }) {
  if (state.error)
    return (
      <p class="list-error" role="alert">
        {state.error}
      </p>
    );
  if (!state.page && state.loading) return <p class="muted">불러오는 중…</p>;
  if (state.page && state.page.totalElements === 0) return <p class="muted">{emptyText}</p>;
  return null;
}

export function TotalCount({ state }: { state: PagedState<unknown> }) {
  return state.page ? <span class="count">총 {state.page.totalElements}건</span> : null;
}

/** A form field's text (a file input would give a File, which no filter here has). */
export const textOf = (value: FormDataEntryValue | null): string => (typeof value === 'string' ? value : '');
