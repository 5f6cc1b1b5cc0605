/**
 * 승인 대기: listings by general members wait here until an administrator approves or rejects them. Issue 40: the
 * queue is filtered and sorted, each listing opens as members would read it before a decision, and several rows
 * can be decided at once (each row's outcome shown; a reject of several asks for confirmation with the count).
 */
import { useState } from 'preact/hooks';
import type { AdminApi, BulkOutcome, RentalType, SortDirection } from '../api/admin';
import { RENTAL_TYPE_LABELS, formatDateTime, formatPrice, rentalTypeLabel } from '../api/labels';
import { ConfirmDialog, ReasonForm } from '../components/forms';
import { ListingPreview } from '../components/listing-preview';
import { useAction } from '../components/notice';
import { ListStatus, Pager, TotalCount, textOf, usePagedList } from '../components/paged-list';
import { ListingThumbnail } from '../components/thumbnail';

const PAGE_SIZE = 10;

export function ApprovalsScreen({ api }: { api: AdminApi }) {
  const [search, setSearch] = useState('');
  const [rentalType, setRentalType] = useState<RentalType | ''>('');
  const [direction, setDirection] = useState<SortDirection>('asc');
  const list = usePagedList(
    (page) => api.approvals.list({ page, size: PAGE_SIZE, search, rentalType, sort: `updatedAt,${direction}` }),
    [search, rentalType, direction],
  );
  const { run, busy } = useAction();
  const [rejecting, setRejecting] = useState<number | null>(null);
  const [previewing, setPreviewing] = useState<number | null>(null);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [bulkRejecting, setBulkRejecting] = useState(false);
  const [outcomes, setOutcomes] = useState<BulkOutcome[] | null>(null);
  /** The reason of a bulk rejection waiting for its confirmation (with the count), else null. */
  const [confirmingReject, setConfirmingReject] = useState<string | null>(null);

  const approve = async (houseId: number, title: string) => {
    if (await run(() => api.approvals.approve(houseId), `'${title}' 매물을 승인했습니다.`)) list.reload();
  };
  const reject = async (houseId: number, title: string, reason: string) => {
    if (await run(() => api.approvals.reject(houseId, reason), `'${title}' 매물을 반려했습니다.`)) {
      setRejecting(null);
      list.reload();
    }
  };
  // From the state as it is when the update runs, not as this render saw it: two rows selected faster than the
  // screen re-renders (two Space presses) must both stay selected.
  const toggle = (houseId: number) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(houseId)) next.delete(houseId);
      else next.add(houseId);
      return next;
    });
  const decideSelected = async (approve: boolean, reason?: string) => {
    const ids = [...selected];
    setConfirmingReject(null);
    let answered: BulkOutcome[] = [];
    const done = await run(
      async () => {
        answered = await api.approvals.bulk(ids, approve, reason);
      },
      `선택한 ${ids.length}건을 ${approve ? '승인' : '반려'} 처리했습니다. 건별 결과를 확인하세요.`,
    );
    if (!done) return;
    setOutcomes(answered);
    setSelected(new Set());
    setBulkRejecting(false);
    list.reload();
  };
  const rows = list.page?.content ?? [];
  const allSelected = rows.length > 0 && rows.every((house) => selected.has(house.houseId));

  return (
    <section aria-labelledby="approvals-title">
      <header class="screen-header">
        <h2 id="approvals-title">승인 대기 매물</h2>
        <TotalCount state={list} />
        <button type="button" onClick={list.reload} disabled={list.loading}>
          새로고침
        </button>
      </header>
      <form
        class="filters"
        role="search"
        aria-label="승인 대기 검색"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          setSearch(textOf(form.get('search')).trim());
        }}
      >
        <label>
          제목 검색
          <input name="search" type="search" maxLength={100} defaultValue={search} />
        </label>
        <label>
          거래 유형
          <select value={rentalType} onChange={(e) => setRentalType(e.currentTarget.value as RentalType | '')}>
            <option value="">전체</option>
            {Object.entries(RENTAL_TYPE_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">검색</button>
      </form>
      {selected.size > 0 && (
        <div class="bulk-bar" role="group" aria-label="선택한 매물 처리">
          <span>{selected.size}건 선택됨</span>
          {bulkRejecting ? (
            <ReasonForm
              label="반려 사유 (선택한 모든 매물에)"
              submitLabel={`${selected.size}건 반려하기`}
              maxLength={200}
              required={true}
              busy={busy}
              onSubmit={(reason) => setConfirmingReject(reason)}
              onCancel={() => setBulkRejecting(false)}
            />
          ) : (
            <>
              <button type="button" class="primary" disabled={busy} onClick={() => void decideSelected(true)}>
                선택 승인 ({selected.size}건)
              </button>
              <button type="button" class="danger" disabled={busy} onClick={() => setBulkRejecting(true)}>
                선택 반려
              </button>
              <button type="button" onClick={() => setSelected(new Set())}>
                선택 해제
              </button>
            </>
          )}
        </div>
      )}
      {confirmingReject !== null && (
        <ConfirmDialog
          title="선택한 매물 반려"
          confirmLabel={`${selected.size}건 반려`}
          onConfirm={() => void decideSelected(false, confirmingReject)}
          onCancel={() => setConfirmingReject(null)}
        >
          선택한 매물 {selected.size}건을 반려합니다. 반려 사유: {confirmingReject}
        </ConfirmDialog>
      )}
      {outcomes && (
        <div class="panel" role="status" data-testid="bulk-outcomes">
          <h3>일괄 처리 결과</h3>
          <ul>
            {outcomes.map((outcome) => (
              <li key={outcome.id} data-outcome={outcome.code}>
                {outcome.id}번: {outcome.code === 'SUCCESS' ? '성공' : `실패 (${outcome.message})`}
              </li>
            ))}
          </ul>
          <button type="button" onClick={() => setOutcomes(null)}>
            결과 닫기
          </button>
        </div>
      )}
      {previewing !== null && <ListingPreview api={api} houseId={previewing} onClose={() => setPreviewing(null)} />}
      <ListStatus state={list} emptyText="승인을 기다리는 매물이 없습니다." />
      {rows.length > 0 && (
        <table class="data-table">
          <thead>
            <tr>
              <th>
                <input
                  type="checkbox"
                  aria-label="이 페이지의 매물 모두 선택"
                  checked={allSelected}
                  onChange={() => setSelected(allSelected ? new Set() : new Set(rows.map((house) => house.houseId)))}
                />
              </th>
              <th>번호</th>
              <th>사진</th>
              <th>제목</th>
              <th>작성자</th>
              <th>지역</th>
              <th>거래 유형 / 가격</th>
              <th aria-sort={direction === 'asc' ? 'ascending' : 'descending'}>
                <button type="button" class="sort" onClick={() => setDirection(direction === 'asc' ? 'desc' : 'asc')}>
                  등록일 {direction === 'asc' ? '▲ 오래된 순' : '▼ 최신 순'}
                </button>
              </th>
              <th>처리</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((house) => (
              <tr key={house.houseId} data-house-id={house.houseId}>
                <td data-label="선택">
                  <input type="checkbox" aria-label={`${house.title} 선택`} checked={selected.has(house.houseId)} onChange={() => toggle(house.houseId)} />
                </td>
                <td data-label="번호">{house.houseId}</td>
                <td data-label="사진" class="thumbnail-cell">
                  <ListingThumbnail url={house.imageUrl} title={house.title} />
                </td>
                <td data-label="제목" class="title-cell">
                  {house.title}
                </td>
                <td data-label="작성자">{house.nickName}</td>
                <td data-label="지역">{house.city}</td>
                <td data-label="거래 유형 / 가격">
                  {rentalTypeLabel(house.rentalType)} · {formatPrice(house.rentalType, house.price, house.monthlyPrice)}
                </td>
                <td data-label="등록일">{formatDateTime(house.createdAt)}</td>
                <td data-label="처리" class="actions-cell">
                  {rejecting === house.houseId ? (
                    <ReasonForm
                      label="반려 사유"
                      submitLabel="반려하기"
                      maxLength={200}
                      required={true}
                      busy={busy}
                      onSubmit={(reason) => void reject(house.houseId, house.title, reason)}
                      onCancel={() => setRejecting(null)}
                    />
                  ) : (
                    <div class="actions">
                      <button type="button" onClick={() => setPreviewing(house.houseId)} aria-label={`${house.title} 내용 보기`}>
                        내용 보기
                      </button>
                      <button type="button" class="primary" disabled={busy} onClick={() => void approve(house.houseId, house.title)}>
                        승인
                      </button>
                      <button type="button" class="danger" disabled={busy} onClick={() => setRejecting(house.houseId)}>
                        반려
                      </button>
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager state={list} label="승인 대기" />
    </section>
  );
}
