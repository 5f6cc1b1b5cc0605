/**
 * 처리 기록 (issue 40): every administrator's action in every service, newest first, filtered by actor, action,
 * target and dates. Each row links to what it acted on: a member to their own history, a listing or a report to
 * the listing as members read it. The list is read-only (the API has no way to change an entry).
 */
import { useState } from 'preact/hooks';
import { AUDIT_TARGET_TYPES, type AdminApi, type AuditEntry, type AuditQuery, type AuditTargetType } from '../api/admin';
import { formatDateTime } from '../api/labels';
import { ListingPreview } from '../components/listing-preview';
import { ListStatus, Pager, TotalCount, textOf, usePagedList } from '../components/paged-list';

const PAGE_SIZE = 20;

export const ACTION_LABELS: Record<string, string> = {
  APPROVE: '승인',
  REJECT: '반려',
  SUSPEND: '정지',
  LIFT_SUSPENSION: '정지 해제',
  COMPLETE_WITHDRAWAL: '탈퇴 완료',
  DELETE: '삭제',
  DELETE_COMMENT: '댓글 삭제',
  PIN: '고정',
  UNPIN: '고정 해제',
  DISMISS: '신고 기각',
  REMOVE: '신고로 삭제',
};
export const TARGET_LABELS: Record<AuditTargetType, string> = {
  HOUSE: '매물',
  USER: '회원',
  BOARD: '게시글',
  COMMENT: '댓글',
  REPORT: '신고',
  RECORD: '팀 기록',
};

/** The filters a link can open the screen with (`/admin/audit?memberId=3`). */
function queryFromLocation(): AuditQuery {
  const params = new URLSearchParams(window.location.search);
  const id = (name: string) => {
    const value = Number(params.get(name));
    return Number.isInteger(value) && value > 0 ? value : undefined;
  };
  const targetType = params.get('targetType');
  return {
    memberId: id('memberId'),
    targetId: id('targetId'),
    targetType: AUDIT_TARGET_TYPES.includes(targetType as AuditTargetType) ? (targetType as AuditTargetType) : '',
  };
}

/** The rows of a trail: shared by this screen and a member's history on the members screen. */
export function AuditTable({ entries, onOpenListing }: { entries: AuditEntry[]; onOpenListing: (houseId: number) => void }) {
  return (
    <table class="data-table" data-testid="audit-table">
      <thead>
        <tr>
          <th>시각</th>
          <th>처리자</th>
          <th>처리</th>
          <th>대상</th>
          <th>사유</th>
          <th>요청 id</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id} data-audit-action={entry.action}>
            <td data-label="시각">{formatDateTime(entry.at)}</td>
            <td data-label="처리자">
              {entry.actor.userName} ({entry.actor.id})
            </td>
            <td data-label="처리">{ACTION_LABELS[entry.action] ?? entry.action}</td>
            <td data-label="대상">
              <TargetLink entry={entry} onOpenListing={onOpenListing} />
            </td>
            <td data-label="사유">{entry.reason ?? '-'}</td>
            <td data-label="요청 id" class="small">
              {entry.requestId ?? '-'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function TargetLink({ entry, onOpenListing }: { entry: AuditEntry; onOpenListing: (houseId: number) => void }) {
  const label = `${TARGET_LABELS[entry.targetType]} ${entry.targetId}`;
  if (entry.targetType === 'HOUSE' || entry.targetType === 'REPORT')
    return (
      <button type="button" class="link" onClick={() => onOpenListing(entry.targetId)}>
        {label}
      </button>
    );
  if (entry.targetType === 'USER') return <a href={`/admin/audit?memberId=${entry.targetId}`}>{label}</a>;
  if (entry.targetType === 'BOARD') return <a href={`/api/v1/boards/${entry.targetId}`}>{label}</a>;
  if (entry.targetType === 'RECORD') return <a href={`/api/v1/record/${entry.targetId}`}>{label}</a>;
  return <span>{label}</span>;
}

export function AuditScreen({ api }: { api: AdminApi }) {
  const [query, setQuery] = useState<AuditQuery>(queryFromLocation);
  const [previewing, setPreviewing] = useState<number | null>(null);
  const list = usePagedList((page) => api.audit.list({ ...query, page, size: PAGE_SIZE }), [JSON.stringify(query)]);

  return (
    <section aria-labelledby="audit-title">
      <header class="screen-header">
        <h2 id="audit-title">처리 기록</h2>
        <TotalCount state={list} />
      </header>
      <form
        class="filters"
        role="search"
        aria-label="처리 기록 검색"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const text = (name: string) => textOf(form.get(name)).trim();
          const number = (name: string) => (/^\d+$/.test(text(name)) ? Number(text(name)) : undefined);
          setQuery({
            actor: text('actor'),
            action: text('action'),
            targetType: text('targetType') as AuditTargetType | '',
            targetId: number('targetId'),
            memberId: number('memberId'),
            from: text('from'),
            to: text('to'),
          });
        }}
      >
        <label>
          처리자 (아이디 또는 번호)
          <input name="actor" type="text" maxLength={40} defaultValue={query.actor ?? ''} />
        </label>
        <label>
          처리
          <select name="action" defaultValue={query.action ?? ''}>
            <option value="">전체</option>
            {Object.entries(ACTION_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          대상 종류
          <select name="targetType" defaultValue={query.targetType ?? ''}>
            <option value="">전체</option>
            {AUDIT_TARGET_TYPES.map((type) => (
              <option key={type} value={type}>
                {TARGET_LABELS[type]}
              </option>
            ))}
          </select>
        </label>
        <label>
          대상 번호
          <input name="targetId" type="text" inputMode="numeric" pattern="\d*" defaultValue={query.targetId?.toString() ?? ''} />
        </label>
        <label>
          회원 번호
          <input name="memberId" type="text" inputMode="numeric" pattern="\d*" defaultValue={query.memberId?.toString() ?? ''} />
        </label>
        <label>
          시작일
          <input name="from" type="date" defaultValue={query.from ?? ''} />
        </label>
        <label>
          종료일
          <input name="to" type="date" defaultValue={query.to ?? ''} />
        </label>
        <button type="submit">검색</button>
      </form>
      {previewing !== null && <ListingPreview api={api} houseId={previewing} onClose={() => setPreviewing(null)} />}
      <ListStatus state={list} emptyText="기록이 없습니다." />
      {list.page && list.page.content.length > 0 && <AuditTable entries={list.page.content} onOpenListing={setPreviewing} />}
      <Pager state={list} label="처리 기록" />
    </section>
  );
}
