import type { CommentNotice } from '../src/domain/comment-notices';

/** What every board comment notice of one test file shares: the board, the commenter, whom it concerns. */
export type NoticeDefaults = Pick<CommentNotice, 'targetId' | 'targetTitle' | 'commenterId' | 'commenterNickName' | 'concernedUserIds'>;

/**
 * A maker of board comment notices for one test file: each call is a new comment (ids counted from `firstId`),
 * with the file's defaults under the call's own overrides.
 */
export function boardNoticeMaker(defaults: NoticeDefaults, firstId: number): (overrides?: Partial<CommentNotice>) => CommentNotice {
  let id = firstId;
  return (overrides = {}) => {
    id++;
    return {
      kind: 'board',
      eventId: `evt-${id}`,
      commentId: id,
      content: `댓글 ${id}`,
      occurredAt: new Date().toISOString(),
      ...defaults,
      ...overrides,
    };
  };
}
