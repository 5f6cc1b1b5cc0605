/** 승인 대기: listings by general members wait here until an administrator approves or rejects them. */
import { useState } from 'preact/hooks';
import type { AdminApi } from '../api/admin';
import { formatDateTime, formatPrice, rentalTypeLabel } from '../api/labels';
import { ReasonForm } from '../components/forms';
import { useAction } from '../components/notice';
import { ListStatus, Pager, TotalCount, usePagedList } from '../components/paged-list';
import { ListingThumbnail } from '../components/thumbnail';

const PAGE_SIZE = 10;

export function ApprovalsScreen({ api }: { api: AdminApi }) {
  const list = usePagedList((page) => api.approvals.list({ page, size: PAGE_SIZE }), []);
  const { run, busy } = useAction();
  const [rejecting, setRejecting] = useState<number | null>(null);

  const approve = async (houseId: number, title: string) => {
    if (await run(() => api.approvals.approve(houseId), `'${title}' 매물을 승인했습니다.`)) list.reload();
  };
  const reject = async (houseId: number, title: string, reason: string) => {
    if (await run(() => api.approvals.reject(houseId, reason), `'${title}' 매물을 반려했습니다.`)) {
      setRejecting(null);
      list.reload();
    }
  };

  return (
    <section aria-labelledby="approvals-title">
      <header class="screen-header">
        <h2 id="approvals-title">승인 대기 매물</h2>
        <TotalCount state={list} />
        <button type="button" onClick={list.reload} disabled={list.loading}>
          새로고침
        </button>
      </header>
      <ListStatus state={list} emptyText="승인을 기다리는 매물이 없습니다." />
      {list.page && list.page.content.length > 0 && (
        <table class="data-table">
          <thead>
            <tr>
              <th>번호</th>
              <th>사진</th>
              <th>제목</th>
              <th>작성자</th>
              <th>지역</th>
              <th>거래 유형 / 가격</th>
              <th>등록일</th>
              <th>처리</th>
            </tr>
          </thead>
          <tbody>
            {list.page.content.map((house) => (
              <tr key={house.houseId} data-house-id={house.houseId}>
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
