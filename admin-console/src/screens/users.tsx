/**
 * 회원: search members, filter by status, sort by join date or reports, suspend one with a reason, lift a
 * suspension, and read what administrators did to a member (issue 40). Administrators' rows offer no suspension
 * (the API refuses it).
 */
import { useState } from 'preact/hooks';
import { USER_STATUSES, USER_TYPES, type AdminApi, type UserQuery, type UserStatus, type UserType } from '../api/admin';
import { USER_STATUS_LABELS, USER_TYPE_LABELS, formatDateTime } from '../api/labels';
import { ReasonForm } from '../components/forms';
import { useAction } from '../components/notice';
import { ListStatus, Pager, TotalCount, usePagedList } from '../components/paged-list';
import { ListingPreview, usePreviewFocus } from '../components/listing-preview';
import { AuditTable } from './audit';

const PAGE_SIZE = 20;

interface Filters {
  search: string;
  status: UserStatus | '';
  userType: UserType | '';
  sort: NonNullable<UserQuery['sort']>;
}

const SORTS: Record<Filters['sort'], string> = {
  'createdAt,desc': '가입일 최신 순',
  'createdAt,asc': '가입일 오래된 순',
  'reportCount,desc': '신고 많은 순',
  'reportCount,asc': '신고 적은 순',
};

/** What administrators did to one member (and to what they wrote), newest first. */
function MemberHistory({ api, memberId, nickName, onClose }: { api: AdminApi; memberId: number; nickName: string; onClose: () => void }) {
  const history = usePagedList((page) => api.audit.list({ memberId, page, size: 10 }), [memberId]);
  const [previewing, setPreviewing] = useState<number | null>(null);
  const { closeRef, onKeyDown } = usePreviewFocus(onClose);
  return (
    <section class="panel" aria-labelledby={`history-${memberId}`} data-testid="member-history" onKeyDown={onKeyDown}>
      <header class="screen-header">
        <h3 id={`history-${memberId}`}>{nickName} 회원에 대한 처리 기록</h3>
        <button type="button" onClick={onClose} ref={closeRef}>
          닫기
        </button>
      </header>
      {previewing !== null && <ListingPreview api={api} houseId={previewing} onClose={() => setPreviewing(null)} />}
      <ListStatus state={history} emptyText="처리 기록이 없습니다." />
      {history.page && history.page.content.length > 0 && <AuditTable entries={history.page.content} onOpenListing={setPreviewing} />}
      <Pager state={history} label={`${nickName} 처리 기록`} />
    </section>
  );
}

export function UsersScreen({ api }: { api: AdminApi }) {
  const [draft, setDraft] = useState<Filters>({ search: '', status: '', userType: '', sort: 'createdAt,desc' });
  const [filters, setFilters] = useState<Filters>(draft);
  const list = usePagedList((page) => api.users.list({ ...filters, page, size: PAGE_SIZE }), [filters.search, filters.status, filters.userType, filters.sort]);
  const { run, busy } = useAction();
  const [suspending, setSuspending] = useState<number | null>(null);
  const [history, setHistory] = useState<{ id: number; nickName: string } | null>(null);

  const suspend = async (userId: number, nickName: string, reason: string) => {
    if (await run(() => api.users.suspend(userId, reason), `${nickName} 회원을 정지했습니다.`)) {
      setSuspending(null);
      list.reload();
    }
  };
  const lift = async (userId: number, nickName: string) => {
    if (await run(() => api.users.lift(userId), `${nickName} 회원의 정지를 해제했습니다.`)) list.reload();
  };

  return (
    <section aria-labelledby="users-title">
      <header class="screen-header">
        <h2 id="users-title">회원 관리</h2>
        <TotalCount state={list} />
      </header>
      <form
        class="filters"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters({ ...draft, search: draft.search.trim() });
        }}
      >
        <label>
          검색어
          <input
            type="search"
            placeholder="아이디, 닉네임, 이메일, 전화번호"
            value={draft.search}
            onInput={(e) => setDraft({ ...draft, search: e.currentTarget.value })}
          />
        </label>
        <label>
          상태
          <select value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value as UserStatus | '' })}>
            <option value="">전체</option>
            {USER_STATUSES.map((s) => (
              <option key={s} value={s}>
                {USER_STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
        <label>
          유형
          <select value={draft.userType} onChange={(e) => setDraft({ ...draft, userType: e.currentTarget.value as UserType | '' })}>
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
          <select value={draft.sort} onChange={(e) => setDraft({ ...draft, sort: e.currentTarget.value as Filters['sort'] })}>
            {Object.entries(SORTS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">
          검색
        </button>
      </form>
      {history && <MemberHistory api={api} memberId={history.id} nickName={history.nickName} onClose={() => setHistory(null)} />}
      <ListStatus state={list} emptyText="조건에 맞는 회원이 없습니다." />
      {list.page && list.page.content.length > 0 && (
        <table class="data-table">
          <thead>
            <tr>
              <th>번호</th>
              <th>아이디</th>
              <th>닉네임</th>
              <th>연락처</th>
              <th>유형</th>
              <th>상태</th>
              <th>가입일</th>
              <th>신고</th>
              <th>처리</th>
            </tr>
          </thead>
          <tbody>
            {list.page.content.map((user) => (
              <tr key={user.id} data-user-id={user.id}>
                <td data-label="번호">{user.id}</td>
                <td data-label="아이디">{user.userName ?? '-'}</td>
                <td data-label="닉네임">{user.nickName}</td>
                <td data-label="연락처">
                  {user.email ?? '-'}
                  <br />
                  {user.phoneNum ?? '-'}
                </td>
                <td data-label="유형">
                  {USER_TYPE_LABELS[user.userType] ?? user.userType}
                  {user.authority === 'ADMIN' && <span class="badge">관리자</span>}
                </td>
                <td data-label="상태">
                  <span class={`badge status-${user.status}`}>{USER_STATUS_LABELS[user.status] ?? user.status}</span>
                  {user.suspenseReason && <div class="muted small">사유: {user.suspenseReason}</div>}
                </td>
                <td data-label="가입일">{formatDateTime(user.createdAt)}</td>
                <td data-label="신고">
                  {user.reportCount}건{user.reportedAt && <div class="muted small">최근 {formatDateTime(user.reportedAt)}</div>}
                </td>
                <td data-label="처리" class="actions-cell">
                  {suspending === user.id ? (
                    <ReasonForm
                      label="정지 사유"
                      submitLabel="정지하기"
                      maxLength={200}
                      required={true}
                      busy={busy}
                      onSubmit={(reason) => void suspend(user.id, user.nickName, reason)}
                      onCancel={() => setSuspending(null)}
                    />
                  ) : (
                    <div class="actions">
                      <button type="button" onClick={() => setHistory({ id: user.id, nickName: user.nickName })} aria-label={`${user.nickName} 처리 기록`}>
                        처리 기록
                      </button>
                      {user.authority === 'ADMIN' ? null : user.status === 'SUSPENDED' ? (
                        <button type="button" disabled={busy} onClick={() => void lift(user.id, user.nickName)}>
                          정지 해제
                        </button>
                      ) : user.status === 'ACTIVE' || user.status === 'WITHDRAWAL_REQUESTED' ? (
                        <button type="button" class="danger" disabled={busy} onClick={() => setSuspending(user.id)}>
                          정지
                        </button>
                      ) : null}
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager state={list} label="회원" />
    </section>
  );
}
