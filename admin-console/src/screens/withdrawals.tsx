/**
 * 탈퇴: open withdrawal requests, oldest first (or newest, issue 40), filtered by member type and name; completing
 * one erases the member's personal data.
 */
import { useState } from 'preact/hooks';
import { USER_TYPES, type AdminApi, type SortDirection, type UserType } from '../api/admin';
import { USER_TYPE_LABELS, formatDateTime } from '../api/labels';
import { ConfirmButton } from '../components/forms';
import { useAction } from '../components/notice';
import { ListStatus, Pager, TotalCount, textOf, usePagedList } from '../components/paged-list';

const PAGE_SIZE = 20;

export function WithdrawalsScreen({ api }: { api: AdminApi }) {
  const [search, setSearch] = useState('');
  const [userType, setUserType] = useState<UserType | ''>('');
  const [direction, setDirection] = useState<SortDirection>('asc');
  const list = usePagedList(
    (page) => api.withdrawals.list({ page, size: PAGE_SIZE, search, userType, sort: `requestedAt,${direction}` }),
    [search, userType, direction],
  );
  const { run, busy } = useAction();

  const complete = async (userId: number, nickName: string) => {
    if (await run(() => api.withdrawals.complete(userId), `${nickName} 회원의 탈퇴를 완료했습니다.`)) list.reload();
  };

  return (
    <section aria-labelledby="withdrawals-title">
      <header class="screen-header">
        <h2 id="withdrawals-title">탈퇴 요청</h2>
        <TotalCount state={list} />
      </header>
      <p class="muted">탈퇴를 완료하면 아이디, 비밀번호, 전화번호, 이메일, 중개사 정보가 삭제되며 되돌릴 수 없습니다.</p>
      <form
        class="filters"
        role="search"
        aria-label="탈퇴 요청 검색"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(textOf(new FormData(event.currentTarget).get('search')).trim());
        }}
      >
        <label>
          아이디 또는 닉네임
          <input name="search" type="search" maxLength={100} defaultValue={search} />
        </label>
        <label>
          유형
          <select value={userType} onChange={(e) => setUserType(e.currentTarget.value as UserType | '')}>
            <option value="">전체</option>
            {USER_TYPES.map((t) => (
              <option key={t} value={t}>
                {USER_TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </label>
        <label>
          정렬
          <select value={direction} onChange={(e) => setDirection(e.currentTarget.value as SortDirection)}>
            <option value="asc">요청일 오래된 순</option>
            <option value="desc">요청일 최신 순</option>
          </select>
        </label>
        <button type="submit">검색</button>
      </form>
      <ListStatus state={list} emptyText="처리할 탈퇴 요청이 없습니다." />
      {list.page && list.page.content.length > 0 && (
        <table class="data-table">
          <thead>
            <tr>
              <th>회원 번호</th>
              <th>아이디</th>
              <th>닉네임</th>
              <th>유형</th>
              <th>탈퇴 사유</th>
              <th>요청일</th>
              <th>처리</th>
            </tr>
          </thead>
          <tbody>
            {list.page.content.map((request) => (
              <tr key={request.userId} data-user-id={request.userId}>
                <td data-label="회원 번호">{request.userId}</td>
                <td data-label="아이디">{request.userName}</td>
                <td data-label="닉네임">{request.nickName}</td>
                <td data-label="유형">{USER_TYPE_LABELS[request.userType] ?? request.userType}</td>
                <td data-label="탈퇴 사유">
                  {request.reasons.join(', ')}
                  {request.content && <p class="muted small">{request.content}</p>}
                </td>
                <td data-label="요청일">{formatDateTime(request.requestedAt)}</td>
                <td data-label="처리" class="actions-cell">
                  <ConfirmButton
                    label="탈퇴 완료"
                    confirmLabel="개인정보 삭제 확인"
                    question={`${request.nickName} 회원의 탈퇴를 완료하고 개인정보를 삭제합니다. 되돌릴 수 없습니다.`}
                    busy={busy}
                    onConfirm={() => void complete(request.userId, request.nickName)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager state={list} label="탈퇴 요청" />
    </section>
  );
}
