import { nickNameIn, toIsoOffset } from '@binzip/shared';
import { thumbnailUrlOf } from '@binzip/shared/media';
import type { BoardDoc, CommentDoc } from '../models';

/** Shapes of the spec's board and comment responses (field names and order as the spec lists them). */
export interface BoardItem {
  boardId: number;
  title: string;
  code: string;
  oneLineContent: string;
  nickName: string;
  createdAt: string;
  imageUrl: string | null;
  commentCount: number;
  category: string;
  prefixCategory: string;
  fixed: boolean;
}

export interface OwnBoardItem {
  boardId: number;
  title: string;
  oneLineContent: string;
  createdAt: string;
  imageUrl: string | null;
  category: string;
  prefixCategory: string;
  commentCnt: number;
}

/** A category of a board type: the Korean label (`code`) and the enum name. */
export interface BoardCategory {
  code: string;
  name: string;
}

export interface CommentItem {
  commentId: number;
  nickName: string;
  content: string;
  createdAt: string;
}

export interface BoardDetail {
  boardId: number;
  title: string;
  code: string;
  nickName: string;
  createdAt: string;
  imageUrls: string[];
  loveCount: number;
  category: string;
  prefixCategory: string;
  commentCount: number;
  comments: CommentItem[];
}

/** List items show the first picture's thumbnail (for our own pictures; other URLs as they are); details the full ones. */
const thumbnail = (board: Pick<BoardDoc, 'imageUrls'>): string | null => thumbnailUrlOf(board.imageUrls[0] ?? null);

/**
 * What lists read of a board: everything but the search copy of the body (`plainText`, about the size of the
 * body itself), and for the member's own lists not the body either (their items show no `code`).
 */
export const LISTED_BOARD_FIELDS = { plainText: 0 } as const;
export const OWN_LISTED_BOARD_FIELDS = { plainText: 0, code: 0 } as const;
export type ListedBoard = Omit<BoardDoc, keyof typeof LISTED_BOARD_FIELDS>;
export type OwnListedBoard = Omit<BoardDoc, keyof typeof OWN_LISTED_BOARD_FIELDS>;

export function boardItem(board: ListedBoard, nickNames: Map<number, string>): BoardItem {
  return {
    boardId: board._id,
    title: board.title,
    code: board.code,
    oneLineContent: board.oneLineContent,
    nickName: nickNameIn(nickNames, board.authorId),
    createdAt: toIsoOffset(board.createdAt),
    imageUrl: thumbnail(board),
    commentCount: board.commentCount,
    category: board.category,
    prefixCategory: board.prefixCategory,
    fixed: board.fixed,
  };
}

export function ownBoardItem(board: OwnListedBoard): OwnBoardItem {
  return {
    boardId: board._id,
    title: board.title,
    oneLineContent: board.oneLineContent,
    createdAt: toIsoOffset(board.createdAt),
    imageUrl: thumbnail(board),
    category: board.category,
    prefixCategory: board.prefixCategory,
    commentCnt: board.commentCount,
  };
}

export function commentItem(comment: Pick<CommentDoc, '_id' | 'authorId' | 'content' | 'createdAt'>, nickNames: Map<number, string>): CommentItem {
  return { commentId: comment._id, nickName: nickNameIn(nickNames, comment.authorId), content: comment.content, createdAt: toIsoOffset(comment.createdAt) };
}
