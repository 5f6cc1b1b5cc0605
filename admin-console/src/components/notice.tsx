/**
 * The one place an action's outcome is shown: the success text, or the API's Korean `message` on failure.
 * It stays until the next action, so nothing is missed on a slow screen.
 */
import { createContext } from 'preact';
import { useCallback, useContext, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError, UNEXPECTED_ANSWER } from '@binzip/api-client';
import { NETWORK_ERROR_MESSAGE } from '../api/client';

export interface Notice {
  kind: 'success' | 'error';
  text: string;
}

interface NoticeContextValue {
  notice: Notice | null;
  show: (notice: Notice | null) => void;
}

const NoticeContext = createContext<NoticeContextValue>({ notice: null, show: () => undefined });

export function NoticeProvider({ children }: { children: ComponentChildren }) {
  const [notice, setNotice] = useState<Notice | null>(null);
  return <NoticeContext.Provider value={{ notice, show: setNotice }}>{children}</NoticeContext.Provider>;
}

/** The API's Korean message as it is; the console's own words when no API answer came (network, a proxy's page). */
export function errorText(err: unknown): string {
  if (!(err instanceof ApiError)) return NETWORK_ERROR_MESSAGE;
  if (err.code === UNEXPECTED_ANSWER) return `알 수 없는 오류가 발생했습니다. (HTTP ${err.status})`;
  return err.message;
}

/** Runs an action and reports it; gives true when it succeeded. */
export function useAction(): { run: (action: () => Promise<unknown>, successText: string) => Promise<boolean>; busy: boolean } {
  const { show } = useContext(NoticeContext);
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async (action: () => Promise<unknown>, successText: string) => {
      setBusy(true);
      show(null);
      try {
        await action();
        show({ kind: 'success', text: successText });
        return true;
      } catch (err) {
        show({ kind: 'error', text: errorText(err) });
        return false;
      } finally {
        setBusy(false);
      }
    },
    [show],
  );
  return { run, busy };
}

export function NoticeBar() {
  const { notice, show } = useContext(NoticeContext);
  if (!notice) return null;
  return (
    <div class={`notice notice-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'} data-testid="notice">
      <span>{notice.text}</span>
      <button type="button" class="notice-close" aria-label="알림 닫기" onClick={() => show(null)}>
        ×
      </button>
    </div>
  );
}

export function useNotice(): (notice: Notice | null) => void {
  return useContext(NoticeContext).show;
}
