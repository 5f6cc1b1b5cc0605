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
const thumbnail = (board: BoardDoc): string | null => thumbnailUrlOf(board.imageUrls[0] ?? null);

export function boardItem(board: BoardDoc, nickNames: Map<number, string>): BoardItem {
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

export function ownBoardItem(board: BoardDoc): OwnBoardItem {
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
