/**
 * The console's shell: sign-in, the refusal for non-administrators, and the six screens behind a menu.
 * Screens are addressed by path under /admin/ (the gateway answers index.html for any of them).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { adminApi } from './api/admin';
import { SESSION_EXPIRED_MESSAGE, createConsoleClient, readClaims, type TokenClaims } from './api/client';
import { NoticeBar, NoticeProvider, errorText } from './components/notice';
import { ApprovalsScreen } from './screens/approvals';
import { AuditScreen } from './screens/audit';
import { BoardsScreen } from './screens/boards';
import { ReportsScreen } from './screens/reports';
import { StatsScreen } from './screens/stats';
import { UsersScreen } from './screens/users';
import { WithdrawalsScreen } from './screens/withdrawals';

const BASE = '/admin/';

const SCREENS = [
  { path: '', label: '승인 대기', Screen: ApprovalsScreen },
  { path: 'reports', label: '신고', Screen: ReportsScreen },
  { path: 'users', label: '회원', Screen: UsersScreen },
  { path: 'withdrawals', label: '탈퇴', Screen: WithdrawalsScreen },
  { path: 'boards', label: '고정 게시글', Screen: BoardsScreen },
  { path: 'stats', label: '통계', Screen: StatsScreen },
  { path: 'audit', label: '처리 기록', Screen: AuditScreen },
] as const;

function currentScreenPath(): string {
  const rest = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : '';
  const path = rest.replace(/\/+$/, '');
  return SCREENS.some((s) => s.path === path) ? path : '';
}

export const NOT_ADMIN_MESSAGE = '관리자 계정이 아닙니다. 관리자 콘솔은 관리자만 이용할 수 있습니다.';

export function App() {
  const [claims, setClaims] = useState<TokenClaims | null>(null);
  const [signInMessage, setSignInMessage] = useState<string | null>(null);
  const client = useMemo(
    () =>
      createConsoleClient(() => {
        setClaims(null);
        setSignInMessage(SESSION_EXPIRED_MESSAGE);
      }),
    [],
  );
  const api = useMemo(() => adminApi(client), [client]);

  const signOut = async () => {
    await client.signOut();
    setClaims(null);
    setSignInMessage(null);
  };

  if (!claims)
    return (
      <SignIn
        message={signInMessage}
        onSignIn={async (userName, password) => {
          const token = await client.signIn(userName, password);
          setSignInMessage(null);
          // A token whose claims cannot be read is treated like a member's: the console shows nothing to it.
          setClaims(readClaims(token) ?? { userId: 0, userName: '', authority: 'USER', userType: '' });
        }}
      />
    );

  if (claims.authority !== 'ADMIN')
    return (
      <main class="sign-in">
        <div class="panel">
          <h1>빈집 관리자 콘솔</h1>
          <p class="list-error" role="alert" data-testid="not-admin">
            {NOT_ADMIN_MESSAGE}
          </p>
          <button type="button" onClick={() => void signOut()}>
            다른 계정으로 로그인
          </button>
        </div>
      </main>
    );

  return (
    <NoticeProvider>
      <Console api={api} userName={claims.userName} onSignOut={() => void signOut()} />
    </NoticeProvider>
  );
}

function Console({ api, userName, onSignOut }: { api: ReturnType<typeof adminApi>; userName: string; onSignOut: () => void }) {
  const [path, setPath] = useState(currentScreenPath);
  const [menuOpen, setMenuOpen] = useState(false);

  useEffect(() => {
    const onPop = () => setPath(currentScreenPath());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  const screen = SCREENS.find((s) => s.path === path) ?? SCREENS[0];
  const go = (next: string) => {
    window.history.pushState(null, '', `${BASE}${next}`);
    setPath(next);
    setMenuOpen(false);
  };

  return (
    <div class="layout">
      <header class="topbar">
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="main-menu" onClick={() => setMenuOpen(!menuOpen)}>
          메뉴
        </button>
        <h1>빈집 관리자</h1>
        <span class="who">{userName}</span>
        <button type="button" onClick={onSignOut}>
          로그아웃
        </button>
      </header>
      <nav id="main-menu" class={`menu ${menuOpen ? 'open' : ''}`} aria-label="관리 메뉴">
        {SCREENS.map((s) => (
          <a
            key={s.path}
            href={`${BASE}${s.path}`}
            aria-current={s.path === screen.path ? 'page' : undefined}
            onClick={(event) => {
              event.preventDefault();
              go(s.path);
            }}
          >
            {s.label}
          </a>
        ))}
      </nav>
      <main class="content">
        <NoticeBar />
        <screen.Screen key={screen.path} api={api} />
      </main>
    </div>
  );
}

function SignIn({ message, onSignIn }: { message: string | null; onSignIn: (userName: string, password: string) => Promise<void> }) {
  const [userName, setUserName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="sign-in">
      <form
        class="panel"
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          setError(null);
          // Every failure becomes the form's message; nothing is left to reject.
          onSignIn(userName.trim(), password)
            .catch((err: unknown) => setError(errorText(err)))
            .finally(() => setBusy(false));
        }}
      >
        <h1>빈집 관리자 콘솔</h1>
        {message && !error && (
          <p class="muted" role="status">
            {message}
          </p>
        )}
        <label>
          아이디
          <input name="userName" autoComplete="username" required value={userName} onInput={(e) => setUserName(e.currentTarget.value)} />
        </label>
        <label>
          비밀번호
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {error && (
          <p class="list-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          로그인
        </button>
      </form>
    </main>
  );
}
