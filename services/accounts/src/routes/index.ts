import { operationsDocument, type ApiTags, type ApiDocument } from '@binzip/shared';
import { adminOperations } from './admin';
import { agentOperations } from './agents';
import { fieldLabels } from './schemas';
import { userOperations } from './users';

/** Every operation of the service, in mount order. */
export const operations = [...userOperations, ...agentOperations, ...adminOperations];

/** The tags of the service's operations, each with its description in the API document. */
export const apiTags: ApiTags = {
  users: '회원: 가입 (문자·메일 인증 코드), 로그인, 토큰 재발급, 로그아웃, 내 정보',
  agents: '공인중개사 회원 가입과 확인',
  'admin-users': '관리자: 회원 목록, 정지와 해제',
  'admin-withdrawals': '관리자: 탈퇴 회원 기록',
  'admin-stats': '관리자: 회원과 게시판 통계',
  'admin-audit': '관리자: 모든 서비스의 관리자 처리 기록 (읽기 전용)',
};

/** The accounts part of the API document, derived from the operations. */
export const apiDocument = (): ApiDocument => operationsDocument(operations, { title: 'binzip accounts', version: '1.0.0', tags: apiTags }, fieldLabels);
