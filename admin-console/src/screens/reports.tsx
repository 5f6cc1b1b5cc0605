/**
 * 신고: reported listings (hidden from the public list since their first report) and reported posts (issue 40:
 * public until decided), each with every report's details. Issue 40: the reported listing or post opens as members
 * read it, the queue is sorted by the latest report, and a decision can carry a note the reporters read.
 */
import { useEffect, useState } from 'preact/hooks';
import type { AdminApi, BoardDetail, ReportAction, ReportStatus, ReportedBoard, SortDirection } from '../api/admin';
import { formatDateTime } from '../api/labels';
import { ConfirmButton } from '../components/forms';
import { ListingPreview, SafeBody, usePreviewFocus } from '../components/listing-preview';
import { errorText, useAction } from '../components/notice';
import { ListStatus, Pager, TotalCount, usePagedList } from '../components/paged-list';

const PAGE_SIZE = 10;

type Target = 'HOUSE' | 'BOARD';

export function ReportsScreen({ api }: { api: AdminApi }) {
  const [target, setTarget] = useState<Target>('HOUSE');
  const [status, setStatus] = useState<ReportStatus>('OPEN');
  const [direction, setDirection] = useState<SortDirection>('desc');
  const what = target === 'HOUSE' ? '매물' : '게시글';
  return (
    <section aria-labelledby="reports-title">
      <header class="screen-header">
        <h2 id="reports-title">신고된 {what}</h2>
        <div class="segmented" role="group" aria-label="신고 대상">
          <button type="button" aria-pressed={target === 'HOUSE'} onClick={() => setTarget('HOUSE')}>
            매물
          </button>
          <button type="button" aria-pressed={target === 'BOARD'} onClick={() => setTarget('BOARD')}>
            게시글
          </button>
        </div>
        <div class="segmented" role="group" aria-label="신고 상태">
          <button type="button" aria-pressed={status === 'OPEN'} onClick={() => setStatus('OPEN')}>
            처리 대기
          </button>
          <button type="button" aria-pressed={status === 'CLOSED'} onClick={() => setStatus('CLOSED')}>
            처리 완료
          </button>
        </div>
        <button type="button" class="sort" onClick={() => setDirection(direction === 'desc' ? 'asc' : 'desc')}>
          {direction === 'desc' ? '▼ 최근 신고 순' : '▲ 오래된 신고 순'}
        </button>
      </header>
      {target === 'HOUSE' ? <HouseReports api={api} status={status} direction={direction} /> : <BoardReports api={api} status={status} direction={direction} />}
    </section>
  );
}

interface ListProps {
  api: AdminApi;
  status: ReportStatus;
  direction: SortDirection;
}

/** One report of a listing or a post, as both queues answer it. */
interface ReportLine {
  reportTypeName: string;
  reporterNickName: string;
  createdAt: string;
  reportReason: string;
}

function ReportDetails({ reports }: { reports: ReportLine[] }) {
  return (
    <details>
      <summary>신고 내용 {reports.length}건 보기</summary>
      <ul class="report-list">
        {reports.map((report, index) => (
          <li key={index}>
            <strong>{report.reportTypeName}</strong> · {report.reporterNickName} · {formatDateTime(report.createdAt)}
            <p>{report.reportReason}</p>
          </li>
        ))}
      </ul>
    </details>
  );
}

function NoteField({ readers, value, onInput }: { readers: string; value: string; onInput: (text: string) => void }) {
  return (
    <label class="note">
      처리 메모 ({readers}에게 보임, 선택)
      <input type="text" maxLength={500} value={value} onInput={(e) => onInput(e.currentTarget.value)} />
    </label>
  );
}

function HouseReports({ api, status, direction }: ListProps) {
  const list = usePagedList((page) => api.reports.list({ status, page, size: PAGE_SIZE, sort: `lastReportedAt,${direction}` }), [status, direction]);
  const { run, busy } = useAction();
  const [notes, setNotes] = useState<Record<number, string>>({});
  const [previewing, setPreviewing] = useState<number | null>(null);

  const decide = async (houseId: number, title: string, action: ReportAction) => {
    const done = action === 'DISMISS' ? `'${title}' 신고를 기각했습니다. 매물이 다시 공개됩니다.` : `'${title}' 매물을 삭제했습니다.`;
    if (await run(() => api.reports.decide(houseId, action, notes[houseId]?.trim() || undefined), done)) list.reload();
  };

  return (
    <>
      <TotalCount state={list} />
      {previewing !== null && <ListingPreview api={api} houseId={previewing} onClose={() => setPreviewing(null)} />}
      <ListStatus state={list} emptyText={status === 'OPEN' ? '처리할 신고가 없습니다.' : '처리한 신고가 없습니다.'} />
      <ul class="cards">
        {list.page?.content.map((item) => (
          <li key={item.houseId} class="card" data-house-id={item.houseId}>
            <div class="card-head">
              <h3>{item.title}</h3>
              <span class={`badge ${item.status === 'OPEN' ? 'badge-warn' : ''}`}>{item.status === 'OPEN' ? '처리 대기' : '처리 완료'}</span>
            </div>
            <dl class="facts">
              <div>
                <dt>매물 번호</dt>
                <dd>{item.houseId}</dd>
              </div>
              <div>
                <dt>작성자</dt>
                <dd>
                  {item.nickName} (회원 {item.authorId})
                </dd>
              </div>
              <div>
                <dt>신고 수</dt>
                <dd>{item.reportCount}건</dd>
              </div>
              <div>
                <dt>최근 신고</dt>
                <dd>{formatDateTime(item.lastReportedAt)}</dd>
              </div>
            </dl>
            <ReportDetails reports={item.reports} />
            <button type="button" onClick={() => setPreviewing(item.houseId)} aria-label={`${item.title} 매물 내용 보기`}>
              매물 내용 보기
            </button>
            {item.status === 'OPEN' && (
              <NoteField readers="신고자와 작성자" value={notes[item.houseId] ?? ''} onInput={(text) => setNotes({ ...notes, [item.houseId]: text })} />
            )}
            {item.status === 'OPEN' && (
              <div class="actions">
                <button type="button" disabled={busy} onClick={() => void decide(item.houseId, item.title, 'DISMISS')}>
                  신고 기각 (다시 공개)
                </button>
                <ConfirmButton
                  label="매물 삭제"
                  confirmLabel="삭제 확인"
                  question={`'${item.title}' 매물을 삭제하고 신고 ${item.reportCount}건을 처리 완료합니다.`}
                  busy={busy}
                  onConfirm={() => void decide(item.houseId, item.title, 'REMOVE')}
                />
              </div>
            )}
          </li>
        ))}
      </ul>
      <Pager state={list} label="신고" />
    </>
  );
}

function BoardReports({ api, status, direction }: ListProps) {
  const list = usePagedList((page) => api.boardReports.list({ status, page, size: PAGE_SIZE, sort: `lastReportedAt,${direction}` }), [status, direction]);
  const { run, busy } = useAction();
  const [notes, setNotes] = useState<Record<number, string>>({});
  const [previewing, setPreviewing] = useState<ReportedBoard | null>(null);

  const decide = async (boardId: number, title: string, action: ReportAction) => {
    const done = action === 'DISMISS' ? `'${title}' 게시글 신고를 기각했습니다.` : `'${title}' 게시글을 삭제했습니다.`;
    if (await run(() => api.boardReports.decide(boardId, action, notes[boardId]?.trim() || undefined), done)) list.reload();
  };

  return (
    <>
      <TotalCount state={list} />
      {previewing !== null && <BoardPreview api={api} item={previewing} onClose={() => setPreviewing(null)} />}
      <ListStatus state={list} emptyText={status === 'OPEN' ? '처리할 게시글 신고가 없습니다.' : '처리한 게시글 신고가 없습니다.'} />
      <ul class="cards">
        {list.page?.content.map((item) => (
          <li key={item.boardId} class="card" data-board-id={item.boardId}>
            <div class="card-head">
              <h3>{item.title}</h3>
              <span class={`badge ${item.status === 'OPEN' ? 'badge-warn' : ''}`}>{item.status === 'OPEN' ? '처리 대기' : '처리 완료'}</span>
              {item.deleted && <span class="badge">삭제됨</span>}
            </div>
            <dl class="facts">
              <div>
                <dt>게시글 번호</dt>
                <dd>{item.boardId}</dd>
              </div>
              <div>
                <dt>작성자</dt>
                <dd>
                  {item.nickName} (회원 {item.authorId})
                </dd>
              </div>
              <div>
                <dt>신고 수</dt>
                <dd>{item.reportCount}건</dd>
              </div>
              <div>
                <dt>최근 신고</dt>
                <dd>{formatDateTime(item.lastReportedAt)}</dd>
              </div>
              {item.note && (
                <div>
                  <dt>처리 메모</dt>
                  <dd>{item.note}</dd>
                </div>
              )}
            </dl>
            <ReportDetails reports={item.reports} />
            {!item.deleted && (
              <button type="button" onClick={() => setPreviewing(item)} aria-label={`${item.title} 게시글 내용 보기`}>
                게시글 내용 보기
              </button>
            )}
            {item.status === 'OPEN' && (
              <NoteField readers="신고자" value={notes[item.boardId] ?? ''} onInput={(text) => setNotes({ ...notes, [item.boardId]: text })} />
            )}
            {item.status === 'OPEN' && (
              <div class="actions">
                <button type="button" disabled={busy} onClick={() => void decide(item.boardId, item.title, 'DISMISS')}>
                  신고 기각 (게시글 유지)
                </button>
                <ConfirmButton
                  label="게시글 삭제"
                  confirmLabel="삭제 확인"
                  question={`'${item.title}' 게시글을 삭제하고 신고 ${item.reportCount}건을 처리 완료합니다.`}
                  busy={busy}
                  onConfirm={() => void decide(item.boardId, item.title, 'REMOVE')}
                />
              </div>
            )}
          </li>
        ))}
      </ul>
      <Pager state={list} label="게시글 신고" />
    </>
  );
}

/** A reported post as members read it: its body rendered safely, its pictures, and the reports it has. */
function BoardPreview({ api, item, onClose }: { api: AdminApi; item: ReportedBoard; onClose: () => void }) {
  const [board, setBoard] = useState<BoardDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { closeRef, onKeyDown } = usePreviewFocus(onClose);
  useEffect(() => {
    let current = true;
    setBoard(null);
    setError(null);
    api.boards.detail(item.boardId).then(
      (loaded) => current && setBoard(loaded),
      (err: unknown) => current && setError(errorText(err)),
    );
    return () => {
      current = false;
    };
  }, [item.boardId]);
  return (
    <section class="preview panel" aria-labelledby={`board-preview-${item.boardId}`} data-testid="board-preview" onKeyDown={onKeyDown}>
      <header class="screen-header">
        <h3 id={`board-preview-${item.boardId}`}>{board ? board.title : `게시글 ${item.boardId}`}</h3>
        <button type="button" onClick={onClose} ref={closeRef}>
          닫기
        </button>
      </header>
      {error && (
        <p class="list-error" role="alert">
          {error}
        </p>
      )}
      {!board && !error && <p class="muted">불러오는 중…</p>}
      {board && (
        <div>
          <dl class="facts">
            <dt>작성자</dt>
            <dd>{board.nickName}</dd>
            <dt>작성일</dt>
            <dd>{formatDateTime(board.createdAt)}</dd>
            <dt>좋아요 · 댓글</dt>
            <dd>
              {board.loveCount} · {board.commentCount}
            </dd>
          </dl>
          <h4>본문</h4>
          <SafeBody html={board.code} />
          <h4>이 게시글의 신고</h4>
          <ul data-testid="board-reports">
            {item.reports.map((report, i) => (
              <li key={i}>
                {report.reportTypeName} · {report.reportReason} ({report.reporterNickName}, {formatDateTime(report.createdAt)})
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
