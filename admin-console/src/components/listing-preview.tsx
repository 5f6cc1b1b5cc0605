/**
 * See before acting (issue 40): a listing as members read it, opened from the approval queue, a report or an
 * audit row. The body is HTML the server sanitized on write; the console still renders it through its own
 * allowlist into elements (never innerHTML), so nothing in it can run here: DOMParser builds an inert document
 * (its scripts never run, its images never load), and only the tags and attributes below are copied.
 */
import type { ComponentChildren, VNode } from 'preact';
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AdminApi, HouseDetail, HouseListItem, ReportedHouse } from '../api/admin';
import { formatDateTime, formatPrice, rentalTypeLabel } from '../api/labels';
import { useFocusReturn } from './forms';
import { errorText } from './notice';
import { ListingThumbnail } from './thumbnail';

const ALLOWED_TAGS = new Set([
  'p',
  'br',
  'b',
  'strong',
  'i',
  'em',
  'u',
  's',
  'blockquote',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'span',
  'div',
  'a',
  'img',
  'hr',
  'pre',
  'code',
]);
// Headings in a body would break the console's outline: they are shown as strong paragraphs.
const DEMOTED = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

const isHttpUrl = (value: string | null): value is string => {
  if (!value) return false;
  try {
    const url = new URL(value, window.location.href);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:';
  } catch {
    return false;
  }
};

function renderNode(node: Node, key: number): ComponentChildren {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const element = node as Element;
  const tag = element.tagName.toLowerCase();
  const children = Array.from(element.childNodes).map((child, i) => renderNode(child, i));
  if (!ALLOWED_TAGS.has(tag)) return children; // the text of an unknown element, without the element
  if (tag === 'img') {
    const src = element.getAttribute('src');
    return isHttpUrl(src) ? <ListingThumbnail key={key} url={src} title={element.getAttribute('alt') ?? '본문'} /> : null;
  }
  if (tag === 'a') {
    const href = element.getAttribute('href');
    return isHttpUrl(href) ? (
      <a key={key} href={href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    ) : (
      <span key={key}>{children}</span>
    );
  }
  if (DEMOTED.has(tag))
    return (
      <p key={key} class="strong">
        {children}
      </p>
    );
  return h(tag, { key }, children) as VNode;
}

/** The sanitized body as elements (no HTML string reaches the page). */
export function SafeBody({ html }: { html: string }) {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return <div class="listing-body">{Array.from(doc.body.childNodes).map((node, i) => renderNode(node, i))}</div>;
}

interface PreviewData {
  house: HouseDetail;
  others: HouseListItem[];
  reports: ReportedHouse['reports'];
}

/** Loads the listing, the author's other public listings and the reports it had (open and handled). */
async function loadPreview(api: AdminApi, houseId: number): Promise<PreviewData> {
  const house = await api.houses.detail(houseId);
  const [others, open, closed] = await Promise.all([
    api.houses.byNickName(house.nickName).then((page) => page.content.filter((item) => item.nickName === house.nickName && item.houseId !== houseId)),
    api.reports.list({ status: 'OPEN', size: 100 }),
    api.reports.list({ status: 'CLOSED', size: 100 }),
  ]);
  const reports = [...open.content, ...closed.content].filter((item) => item.houseId === houseId).flatMap((item) => item.reports);
  return { house, others, reports };
}

const MODERATION_LABELS = { REJECTED: '반려됨', REMOVED: '신고로 삭제됨', REPORT_DISMISSED: '신고 기각됨' } as const;

/**
 * What a preview panel does for the keyboard (issue 40): the focus moves to its 닫기 when it opens (an `autofocus`
 * attribute only works once per page), Escape closes it, and the focus goes back to the button that opened it.
 */
export function usePreviewFocus(onClose: () => void) {
  const closeRef = useRef<HTMLButtonElement>(null);
  useFocusReturn();
  useEffect(() => closeRef.current?.focus(), []);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    onClose();
  };
  return { closeRef, onKeyDown };
}

export function ListingPreview({ api, houseId, onClose }: { api: AdminApi; houseId: number; onClose: () => void }) {
  const [data, setData] = useState<PreviewData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { closeRef, onKeyDown } = usePreviewFocus(onClose);
  useEffect(() => {
    let current = true;
    setData(null);
    setError(null);
    loadPreview(api, houseId).then(
      (loaded) => current && setData(loaded),
      (err: unknown) => current && setError(errorText(err)),
    );
    return () => {
      current = false;
    };
  }, [houseId]);

  return (
    <section class="preview panel" aria-labelledby={`preview-title-${houseId}`} data-testid="listing-preview" onKeyDown={onKeyDown}>
      <header class="screen-header">
        <h3 id={`preview-title-${houseId}`}>{data ? data.house.title : `매물 ${houseId}`}</h3>
        <button type="button" onClick={onClose} ref={closeRef}>
          닫기
        </button>
      </header>
      {error && (
        <p class="list-error" role="alert">
          {error}
        </p>
      )}
      {!data && !error && <p class="muted">불러오는 중…</p>}
      {data && (
        <div>
          <dl class="facts">
            <dt>작성자</dt>
            <dd>{data.house.nickName}</dd>
            <dt>지역</dt>
            <dd>
              {data.house.city} {data.house.detail}
            </dd>
            <dt>거래</dt>
            <dd>
              {rentalTypeLabel(data.house.rentalType)} · {formatPrice(data.house.rentalType, data.house.price, data.house.monthlyPrice)}
            </dd>
            <dt>연락처</dt>
            <dd>{data.house.contact}</dd>
            <dt>등록일</dt>
            <dd>{formatDateTime(data.house.createdAt)}</dd>
            {data.house.moderation && (
              <>
                <dt>관리 결정</dt>
                <dd>
                  {MODERATION_LABELS[data.house.moderation.state]}
                  {data.house.moderation.reason ? ` (${data.house.moderation.reason})` : ''}
                </dd>
              </>
            )}
          </dl>
          <h4>본문</h4>
          <SafeBody html={data.house.code} />
          <h4>사진 {data.house.imageUrls.length}장</h4>
          {data.house.imageUrls.length === 0 ? (
            <p class="muted">사진 없음</p>
          ) : (
            <ul class="pictures">
              {data.house.imageUrls.map((url, i) => (
                <li key={url}>
                  <ListingThumbnail url={url} title={`${data.house.title} ${i + 1}번째`} />
                </li>
              ))}
            </ul>
          )}
          <h4>작성자의 다른 공개 매물</h4>
          {data.others.length === 0 ? (
            <p class="muted">없음</p>
          ) : (
            <ul data-testid="author-listings">
              {data.others.map((item) => (
                <li key={item.houseId}>
                  {item.houseId} · {item.title}
                </li>
              ))}
            </ul>
          )}
          <h4>이 매물의 신고</h4>
          {data.reports.length === 0 ? (
            <p class="muted">신고 없음</p>
          ) : (
            <ul data-testid="listing-reports">
              {data.reports.map((report, i) => (
                <li key={i}>
                  {report.reportTypeName} · {report.reportReason} ({report.reporterNickName}, {formatDateTime(report.createdAt)})
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
