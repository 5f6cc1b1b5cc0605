/**
 * 신고: reported listings (hidden from the public list since their first report), with every report's details.
 * Issue 40: the reported listing opens as members read it, and a decision can carry a note the reporters and the
 * author read.
 */
import { useState } from 'preact/hooks';
import type { AdminApi, ReportAction, ReportStatus } from '../api/admin';
import { formatDateTime } from '../api/labels';
import { ConfirmButton } from '../components/forms';
import { ListingPreview } from '../components/listing-preview';
import { useAction } from '../components/notice';
import { ListStatus, Pager, TotalCount, usePagedList } from '../components/paged-list';

const PAGE_SIZE = 10;

export function ReportsScreen({ api }: { api: AdminApi }) {
  const [status, setStatus] = useState<ReportStatus>('OPEN');
  const list = usePagedList((page) => api.reports.list({ status, page, size: PAGE_SIZE }), [status]);
  const { run, busy } = useAction();
  const [notes, setNotes] = useState<Record<number, string>>({});
  const [previewing, setPreviewing] = useState<number | null>(null);

  const decide = async (houseId: number, title: string, action: ReportAction) => {
    const done = action === 'DISMISS' ? `'${title}' 신고를 기각했습니다. 매물이 다시 공개됩니다.` : `'${title}' 매물을 삭제했습니다.`;
    if (await run(() => api.reports.decide(houseId, action, notes[houseId]?.trim() || undefined), done)) list.reload();
  };

  return (
    <section aria-labelledby="reports-title">
      <header class="screen-header">
        <h2 id="reports-title">신고된 매물</h2>
        <TotalCount state={list} />
        <div class="segmented" role="group" aria-label="신고 상태">
          <button type="button" aria-pressed={status === 'OPEN'} onClick={() => setStatus('OPEN')}>
            처리 대기
          </button>
          <button type="button" aria-pressed={status === 'CLOSED'} onClick={() => setStatus('CLOSED')}>
            처리 완료
          </button>
        </div>
      </header>
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
            <details>
              <summary>신고 내용 {item.reports.length}건 보기</summary>
              <ul class="report-list">
                {item.reports.map((report, index) => (
                  <li key={index}>
                    <strong>{report.reportTypeName}</strong> · {report.reporterNickName} · {formatDateTime(report.createdAt)}
                    <p>{report.reportReason}</p>
                  </li>
                ))}
              </ul>
            </details>
            <button type="button" onClick={() => setPreviewing(item.houseId)} aria-label={`${item.title} 매물 내용 보기`}>
              매물 내용 보기
            </button>
            {item.status === 'OPEN' && (
              <label class="note">
                처리 메모 (신고자와 작성자에게 보임, 선택)
                <input
                  type="text"
                  maxLength={500}
                  value={notes[item.houseId] ?? ''}
                  onInput={(e) => setNotes({ ...notes, [item.houseId]: e.currentTarget.value })}
                />
              </label>
            )}
            {item.status === 'OPEN' && (
              <div class="actions">
                <button type="button" disabled={busy} onClick={() => void decide(item.houseId, item.title, 'DISMISS')}>
                  신고 기각 (다시 공개)
                </button>
                <ConfirmButton label="매물 삭제" confirmLabel="삭제 확인" busy={busy} onConfirm={() => void decide(item.houseId, item.title, 'REMOVE')} />
              </div>
            )}
          </li>
        ))}
      </ul>
      <Pager state={list} label="신고" />
    </section>
  );
}
