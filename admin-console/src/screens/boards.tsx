/** 고정 게시글: promotion posts (the public ADVERTISEMENT board list, pinned first), pinned or unpinned here. */
import { useState } from 'preact/hooks';
import type { AdminApi } from '../api/admin';
import { formatDateTime } from '../api/labels';
import { useAction } from '../components/notice';
import { ListStatus, Pager, TotalCount, usePagedList } from '../components/paged-list';

const PAGE_SIZE = 20;
/** backoffice.md: at most this many promotion posts are pinned at once. */
const PIN_LIMIT = 10;

export function BoardsScreen({ api }: { api: AdminApi }) {
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const list = usePagedList((page) => api.boards.promotions({ page, size: PAGE_SIZE, search }), [search]);
  const { run, busy } = useAction();

  const setFixed = async (boardId: number, title: string, fixed: boolean) => {
    if (await run(() => api.boards.setFixed(boardId, fixed), fixed ? `'${title}' 게시글을 고정했습니다.` : `'${title}' 게시글의 고정을 해제했습니다.`))
      list.reload();
  };

  return (
    <section aria-labelledby="boards-title">
      <header class="screen-header">
        <h2 id="boards-title">홍보 게시글 고정</h2>
        <TotalCount state={list} />
      </header>
      <p class="muted">홍보 게시판의 글을 목록 맨 위에 고정합니다. 한 번에 최대 {PIN_LIMIT}개까지 고정할 수 있습니다.</p>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(draft.trim());
        }}
      >
        <label>
          검색어
          <input type="search" placeholder="제목, 내용" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary">
          검색
        </button>
      </form>
      <ListStatus state={list} emptyText="홍보 게시글이 없습니다." />
      {list.page && list.page.content.length > 0 && (
        <table class="data-table">
          <thead>
            <tr>
              <th>번호</th>
              <th>제목</th>
              <th>작성자</th>
              <th>작성일</th>
              <th>고정</th>
            </tr>
          </thead>
          <tbody>
            {list.page.content.map((board) => (
              <tr key={board.boardId} data-board-id={board.boardId} class={board.fixed ? 'pinned' : ''}>
                <td data-label="번호">{board.boardId}</td>
                <td data-label="제목" class="title-cell">
                  {board.fixed && <span class="badge badge-warn">고정</span>} {board.title}
                </td>
                <td data-label="작성자">{board.nickName}</td>
                <td data-label="작성일">{formatDateTime(board.createdAt)}</td>
                <td data-label="고정" class="actions-cell">
                  {board.fixed ? (
                    <button type="button" disabled={busy} onClick={() => void setFixed(board.boardId, board.title, false)}>
                      고정 해제
                    </button>
                  ) : (
                    <button type="button" class="primary" disabled={busy} onClick={() => void setFixed(board.boardId, board.title, true)}>
                      고정
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager state={list} label="홍보 게시글" />
    </section>
  );
}
