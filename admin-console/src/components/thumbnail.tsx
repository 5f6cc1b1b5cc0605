/**
 * A listing's picture in a list: our own pictures (uploaded through the API, served by this site) as the
 * thumbnail the list answer names; a picture elsewhere only as a link, since the console's content security
 * policy loads images from this site alone (a third-party image would also tell its host who looked).
 */
const isOwn = (url: string): boolean => {
  try {
    return new URL(url, window.location.href).origin === window.location.origin;
  } catch {
    return false;
  }
};

export function ListingThumbnail({ url, title }: { url: string | null; title: string }) {
  if (!url) return <span class="muted">사진 없음</span>;
  if (isOwn(url)) return <img class="listing-thumbnail" src={url} alt={`${title} 사진`} loading="lazy" decoding="async" />;
  return (
    <a href={url} target="_blank" rel="noopener noreferrer">
      외부 사진
    </a>
  );
}
