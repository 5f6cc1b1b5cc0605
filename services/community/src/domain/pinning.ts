import { randomUUID } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { AppError, auditEvent, isDuplicateKeyError, TooManyRequestsError, type AuthClaims } from '@binzip/shared';
import type { CommunityContext } from './context';

/** backoffice.md: at most this many promotion posts are pinned at once. */
export const MAX_PINNED_BOARDS = 10;

const PINNED = { fixed: true, deleted: false };

/** How long one pin decision may hold the pin lease before another instance may take it over (a crashed holder). */
const PIN_LEASE_MS = 5_000;
/** How long a pin waits for the lease before it is answered 429 C0004 (25 racing administrators pass well within it). */
const PIN_WAIT_MS = 10_000;

interface PinLease {
  _id: 'pins';
  holder: string;
  until: Date;
}

/**
 * Runs `pin` (which checks the room, then writes) while holding the one pin lease of the service's database, so
 * that exactly the free slots are given, however many writes race, on however many instances: a count taken after
 * the write (the earlier design) could refuse every racer of the last slots. The lease is a single document taken
 * with an atomic upsert; its expiry (wall-clock, as it is about a process's liveness, not the domain's time)
 * frees it when a holder dies.
 */
async function withPinLease<T>(ctx: CommunityContext, pin: () => Promise<T>): Promise<T> {
  const leases = ctx.models.boards.db.collection<PinLease>('pin_leases');
  const holder = randomUUID();
  const giveUpAt = Date.now() + PIN_WAIT_MS;
  for (;;) {
    const now = Date.now();
    try {
      await leases.updateOne({ _id: 'pins', until: { $lt: new Date(now) } }, { $set: { holder, until: new Date(now + PIN_LEASE_MS) } }, { upsert: true });
      break;
    } catch (err) {
      // The lease exists and has not expired: the upsert's insert met the held document.
      if (!isDuplicateKeyError(err)) throw err;
      if (now > giveUpAt) throw new TooManyRequestsError(1);
      await setTimeout(5 + Math.random() * 20);
    }
  }
  try {
    return await pin();
  } finally {
    await leases.deleteOne({ _id: 'pins', holder });
  }
}

/** Runs `write`, which pins one more post, only while a slot is free (B0001 otherwise), holding the pin lease. */
export async function writeIfPinRoom<T>(ctx: CommunityContext, write: () => Promise<T>): Promise<T> {
  return withPinLease(ctx, async () => {
    if ((await ctx.models.boards.countDocuments(PINNED).exec()) >= MAX_PINNED_BOARDS) throw new AppError('B0001');
    return write();
  });
}

/**
 * Pins or unpins a promotion (ADVERTISEMENT) post; pinning an already pinned post (or unpinning one that is not)
 * is a no-op. Each change carries its audit entry (PIN or UNPIN, issue 40) in the post's write; a no-op none.
 */
export async function setPinned(ctx: CommunityContext, admin: AuthClaims, input: { boardId: number; fixed: boolean }): Promise<number> {
  const { models } = ctx;
  const { boardId, fixed } = input;
  const board = await models.boards.findOne({ _id: boardId, deleted: false }, { prefixCategory: 1, fixed: 1, authorId: 1 }).lean().exec();
  if (!board) throw AppError.notFound();
  if (board.prefixCategory !== 'ADVERTISEMENT') throw AppError.invalid('홍보 게시글만 고정할 수 있습니다.');
  const audit = () => ({
    $push: {
      pendingEvents: auditEvent(
        'community',
        admin,
        { action: fixed ? 'PIN' : 'UNPIN', targetType: 'BOARD', targetId: boardId, memberId: board.authorId },
        ctx.now(),
      ),
    },
  });
  if (!fixed) {
    const result = await models.boards.updateOne({ _id: boardId, fixed: true }, { $set: { fixed: false }, ...audit() }).exec();
    if (result.modifiedCount > 0) ctx.eventsPending();
    return boardId;
  }
  if (board.fixed) return boardId;
  const result = await writeIfPinRoom(ctx, () =>
    models.boards.updateOne({ _id: boardId, deleted: false, fixed: false }, { $set: { fixed: true }, ...audit() }).exec(),
  );
  if (result.modifiedCount > 0) ctx.eventsPending();
  return boardId;
}
