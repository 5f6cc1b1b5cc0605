/** Korean labels of the API's enum names, as the site shows them. */
import type { AgeBand, DealState, RentalType, UserStatus, UserType } from './admin';

export const USER_STATUS_LABELS: Record<UserStatus, string> = {
  ACTIVE: '활동',
  SUSPENDED: '정지',
  WITHDRAWAL_REQUESTED: '탈퇴 요청',
  WITHDRAWN: '탈퇴',
};

export const USER_TYPE_LABELS: Record<UserType, string> = {
  NONE: '일반',
  AGENT: '공인중개사',
  WEB: '웹 팀',
  SERVER: '서버 팀',
};

export const AGE_LABELS: Record<AgeBand, string> = {
  TEN: '10대',
  TWENTY: '20대',
  THIRTY: '30대',
  FORTY: '40대',
  FIFTY: '50대',
  SIXTY: '60대 이상',
};

export const DEAL_STATE_LABELS: Record<DealState, string> = {
  APPLYING: '승인 대기',
  ONGOING: '거래 중',
  COMPLETED: '거래 완료',
  REJECTED: '반려',
};

export const RENTAL_TYPE_LABELS: Record<RentalType, string> = {
  SALE: '매매',
  JEONSE: '전세',
  MONTHLYRENT: '월세',
};

/** A listing's rental type as the API sends it (a draft's may be blank): its label, or the value itself. */
export function rentalTypeLabel(rentalType: string): string {
  return (RENTAL_TYPE_LABELS as Record<string, string>)[rentalType] ?? rentalType;
}

const dateTime = new Intl.DateTimeFormat('ko-KR', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Seoul' });

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** Prices are in units of 10,000 won (만원). */
export function formatPrice(rentalType: string, price: number, monthlyPrice: number): string {
  const amount = (value: number) => `${value.toLocaleString('ko-KR')}만원`;
  return rentalType === 'MONTHLYRENT' ? `${amount(price)} / 월 ${amount(monthlyPrice)}` : amount(price);
}

/** Join paths as sign-up sends them (Korean) and as the statistics may name them (codes). */
export const JOIN_PATH_LABELS: Record<string, string> = {
  FRIEND: '지인 소개',
  NAVER_CAFE: '네이버 카페',
  NAVER_BLOG: '네이버 블로그',
  NAVER_BAND: '네이버 밴드',
  FACEBOOK: '페이스북',
  INSTAGRAM: '인스타그램',
  SEARCH: '검색',
  ETC: '기타',
};

export const joinPathLabel = (joinPath: string): string => JOIN_PATH_LABELS[joinPath] ?? joinPath;
