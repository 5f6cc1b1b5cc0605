/**
 * The administrators' console in a real headless Chromium against the real system: the built gateway (which
 * serves admin-console/dist) and the accounts, community, houses and notifications processes on the run's stores. The
 * administrator is made by scripts/admin-create.ts, members sign up through the public API.
 * Needs `npm run build` (the processes and the console); `npm test` does it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { eventually, expiredCopyOf } from '../support';
import { codeSentTo as codeSentToOutbox, sampleListing, startE2eSystem, type E2eSystem } from '../support/e2e';
import { photoWithGps, pictureForm } from '../support/pictures';
import { axeViolations, expectNoAxeViolations } from './axe';
import { artifactPath, describeWithChromium, launchBrowser, type Browser } from './browser';

jest.setTimeout(180_000);

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const CONSOLE_INDEX = path.join(REPO_ROOT, 'admin-console', 'dist', 'index.html');
const PASSWORD = 'Passw0rd!';
const PHONE_WIDTH = { width: 390, height: 844 };

const NOT_ADMIN_MESSAGE = '관리자 계정이 아닙니다. 관리자 콘솔은 관리자만 이용할 수 있습니다.';
const NOT_FOUND_MESSAGE = '존재하지 않는 리소스 요청입니다.';
const SESSION_EXPIRED_MESSAGE = '로그인이 만료되었습니다. 다시 로그인해 주세요.';
const NETWORK_ERROR_MESSAGE = '서버에 연결할 수 없습니다. 잠시 후 다시 시도해 주세요.';

// Bodies are read field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type LooseData = any;

/** What the canvas check uses of an HTMLCanvasElement (this file is type-checked without the DOM library). */
interface PaintedCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}

/** What the thumbnail check uses of an HTMLImageElement. */
interface LoadedImage {
  complete: boolean;
  naturalWidth: number;
}

interface Member {
  id: number;
  userName: string;
  nickName: string;
  token: string;
}

const listing = sampleListing;

describeWithChromium('admin console in a headless browser', (executablePath) => {
  const outboxDir = mkdtempSync(path.join(os.tmpdir(), 'admin-console-outbox-'));
  let e2e: E2eSystem;
  let browser: Browser;
  const admin = { userName: 'console_admin', nickName: '콘솔관리자' };
  let member: Member;
  let nonAdmin: Member;
  /** What Chromium refused under the pages' Content-Security-Policy (issue 19 item 10), on every page opened. */
  const policyViolations: string[] = [];

  const consoleUrl = (screen = '') => `${e2e.url}/admin/${screen}`;

  const codeSentTo = (to: string): string | undefined => codeSentToOutbox(outboxDir, to);

  /** Signs a member up the way the site does: phone code, sign-up, sign-in. */
  async function signUp(userName: string, nickName: string, phone: string, age: string, joinPath: string): Promise<Member> {
    await e2e.ok('POST', '/api/v1/users/send/sms', { body: { phone_num: phone } });
    const code = await eventually(() => codeSentTo(phone), 10_000);
    await e2e.ok('POST', '/api/v1/users/check/sms', { body: { phone_num: phone, code } });
    // Sign-up needs the e-mail checked too (issue 19): the site checks both before it signs up.
    await e2e.verifyContacts({ phone_num: phone, email: `${userName}@example.com` });
    await e2e.ok('POST', '/api/v1/users/sign-up', {
      body: {
        userName,
        password: PASSWORD,
        nick_name: nickName,
        phone_num: phone,
        age,
        join_paths: [joinPath],
        terms: ['SERVICE_USED_AGREE'],
        email: `${userName}@example.com`,
      },
    });
    const token = await e2e.signIn(userName, PASSWORD);
    const profile = await e2e.ok<LooseData>('GET', '/api/v1/users', { token });
    return { id: profile.id as number, userName, nickName, token };
  }

  /** The operator's way: `scripts/admin-create.ts` against the system's accounts database and NATS prefix. */
  async function createAdministrator(): Promise<void> {
    const tsx = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
    await promisify(execFile)(
      tsx,
      [
        'scripts/admin-create.ts',
        '--userName',
        admin.userName,
        '--password',
        PASSWORD,
        '--nick_name',
        admin.nickName,
        '--phone_num',
        '01090000001',
        '--email',
        'console-admin@example.com',
        '--type',
        'WEB',
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, MONGODB_DB: e2e.dbName('accounts'), NATS_PREFIX: e2e.names.natsPrefix, BCRYPT_COST: '4' },
        timeout: 90_000,
      },
    );
  }

  async function signInThroughConsole(page: Page, userName: string): Promise<void> {
    await page.goto(consoleUrl());
    await page.getByLabel('아이디').fill(userName);
    await page.getByLabel('비밀번호').fill(PASSWORD);
    await page.getByRole('button', { name: '로그인' }).click();
  }

  async function adminPage(viewport?: { width: number; height: number }): Promise<Page> {
    const page = await browser.context.newPage();
    if (viewport) await page.setViewportSize(viewport);
    await signInThroughConsole(page, admin.userName);
    // The top bar, not the menu: on a phone the menu is folded away until asked for.
    await page.getByRole('heading', { name: '빈집 관리자', exact: true }).waitFor();
    return page;
  }

  /** How many requests the page has sent to `pathname` from now on. */
  function countCalls(page: Page, pathname: string): () => number {
    let count = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === pathname) count++;
    });
    return () => count;
  }

  /**
   * The next call to `pathname` carries an expired copy of the page's token, as a tab left open past the token's
   * life sends it; the API itself answers it. Gives the `Authorization` of every call the API got there.
   */
  async function expireNextCall(page: Page, pathname: string): Promise<string[]> {
    const sent: string[] = [];
    await page.route(`**${pathname}`, async (route) => {
      const headers = await route.request().allHeaders();
      const authorization = sent.length === 0 ? expiredCopyOf(headers.authorization) : headers.authorization;
      sent.push(authorization);
      await route.continue({ headers: { ...headers, authorization } });
    });
    return sent;
  }

  /** The notice an action leaves: its success text or the API's message. */
  const noticeText = async (page: Page) => (await page.getByTestId('notice').textContent())?.replace('×', '').trim();

  const publicListIds = async (): Promise<number[]> => {
    const page = await e2e.ok<LooseData>('GET', '/api/v1/houses?size=50');
    return page.content.map((item: { houseId: number }) => item.houseId);
  };

  beforeAll(async () => {
    if (!existsSync(CONSOLE_INDEX)) throw new Error(`${CONSOLE_INDEX} is missing: run \`npm run build\` first`);
    e2e = await startE2eSystem('adminconsole', {
      services: ['accounts', 'community', 'houses', 'notifications'],
      env: {
        BCRYPT_COST: '4',
        DEV_OUTBOX_DIR: outboxDir,
        LOG_LEVEL: 'warn',
        // Every sign-in and code of this file comes from one address.
        RATE_LIMIT_SIGN_IN_MAX: '1000',
        RATE_LIMIT_SEND_CODE_MAX: '1000',
      },
    });
    await createAdministrator();
    member = await signUp('house_owner', '빈집주인', '01070000001', '30대', '검색');
    nonAdmin = await signUp('plain_member', '일반회원', '01070000002', '20대', '인스타그램');
    // Every listing approved from here on alerts this member (issue 38), so the alert statistics are not all zero.
    await e2e.ok('POST', '/api/v1/saved-searches', { token: nonAdmin.token, body: { name: '모든 매물', alert: true } });
    browser = await launchBrowser(executablePath);
    browser.context.on('page', (page) =>
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) policyViolations.push(`${page.url()}: ${message.text()}`);
      }),
    );
  });

  afterAll(async () => {
    await browser?.close();
    await e2e?.stop();
    rmSync(outboxDir, { recursive: true, force: true });
  });

  it('a member who signs in is told the console is for administrators and sees nothing else', async () => {
    const page = await browser.context.newPage();
    await signInThroughConsole(page, nonAdmin.userName);
    const refusal = page.getByTestId('not-admin');
    await refusal.waitFor();
    expect(await refusal.textContent()).toBe(NOT_ADMIN_MESSAGE);
    expect(await page.getByRole('navigation', { name: '관리 메뉴' }).count()).toBe(0);
    expect(await page.locator('table, .cards').count()).toBe(0);
    await expectNoAxeViolations(page, 'not-an-administrator refusal');
    await page.close();
  });

  it("a wrong password is answered with the API's Korean message on the sign-in form", async () => {
    const page = await browser.context.newPage();
    await page.goto(consoleUrl());
    await page.getByLabel('아이디').fill(admin.userName);
    await page.getByLabel('비밀번호').fill('Wrong0pw!');
    await page.getByRole('button', { name: '로그인' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('비밀번호가 일치하지 않습니다.');
    await expectNoAxeViolations(page, 'sign-in (with its error)');
    await page.close();
  });

  it('an administrator approves a waiting listing of a general member and it appears in the public list', async () => {
    // The member's photo, uploaded through the API: the queue shows its 480 px thumbnail.
    const photo = await e2e.ok<{ imageUrl: string; thumbnailUrl: string }>('POST', '/api/v1/houses/images', {
      token: member.token,
      form: pictureForm(await photoWithGps(1200, 800)),
    });
    const houseId = await e2e.ok<number>('POST', '/api/v1/houses', {
      token: member.token,
      body: { ...listing('담양 돌담 한옥'), imageUrls: [photo.imageUrl, 'https://img.example.com/hanok.jpg'] },
    });
    expect(await publicListIds()).not.toContain(houseId);

    const page = await adminPage();
    expect(await page.getByRole('link', { name: '승인 대기' }).getAttribute('aria-current')).toBe('page');
    const row = page.locator(`tr[data-house-id="${houseId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('빈집주인');
    const thumbnail = row.getByRole('img', { name: '담양 돌담 한옥 사진' });
    expect(await thumbnail.getAttribute('src')).toBe(photo.thumbnailUrl);
    // Loaded (the policy allows this site's pictures) at the thumbnail's own size.
    const loadedWidth = () => thumbnail.evaluate((img: LoadedImage) => (img.complete ? img.naturalWidth : 0));
    expect(await eventually(async () => ((await loadedWidth()) > 0 ? loadedWidth() : undefined), 10_000)).toBe(480);
    await row.getByRole('button', { name: '승인' }).click();

    await page.getByRole('status').waitFor();
    expect(await noticeText(page)).toBe("'담양 돌담 한옥' 매물을 승인했습니다.");
    await row.waitFor({ state: 'detached' });
    expect(await publicListIds()).toContain(houseId);
    await page.close();
  });

  it("a failing action shows the API's Korean message (approving a listing its author deleted meanwhile)", async () => {
    const houseId = await e2e.ok<number>('POST', '/api/v1/houses', { token: member.token, body: listing('곧 삭제될 매물') });
    const page = await adminPage();
    const row = page.locator(`tr[data-house-id="${houseId}"]`);
    await row.waitFor();
    await e2e.ok('DELETE', `/api/v1/houses/${houseId}`, { token: member.token });

    await row.getByRole('button', { name: '승인' }).click();
    await page.getByRole('alert').waitFor();
    expect(await noticeText(page)).toBe(NOT_FOUND_MESSAGE);
    await page.close();
  });

  it('rejecting needs a reason, and the rejected listing leaves the queue without going public', async () => {
    const houseId = await e2e.ok<number>('POST', '/api/v1/houses', { token: member.token, body: listing('사진이 없는 매물') });
    const page = await adminPage();
    const row = page.locator(`tr[data-house-id="${houseId}"]`);
    await row.waitFor();
    await row.getByRole('button', { name: '반려' }).click();
    expect(await row.getByRole('button', { name: '반려하기' }).isDisabled()).toBe(true);
    await row.getByLabel('반려 사유').fill('실제 사진을 올려 주세요.');
    await row.getByRole('button', { name: '반려하기' }).click();
    await page.getByRole('status').waitFor();
    expect(await noticeText(page)).toBe("'사진이 없는 매물' 매물을 반려했습니다.");
    await row.waitFor({ state: 'detached' });
    expect(await publicListIds()).not.toContain(houseId);
    await page.close();
  });

  it('is usable at 1280 px and at phone width: no sideways scrolling, the menu folds away on a phone', async () => {
    await e2e.ok<number>('POST', '/api/v1/houses', { token: member.token, body: listing('화면 확인용 매물') });
    for (const [name, viewport] of [
      ['desktop-1280', { width: 1280, height: 900 }],
      ['phone-390', PHONE_WIDTH],
    ] as const) {
      const page = await adminPage(viewport);
      await page.locator('tr[data-house-id]').first().waitFor();
      // A string, evaluated in the page: this file is type-checked without the DOM library.
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      const menuVisible = await page.getByRole('navigation', { name: '관리 메뉴' }).isVisible();
      expect(menuVisible).toBe(viewport.width > 760);
      await page.screenshot({ path: artifactPath(`approvals-${name}.png`), fullPage: true });
      if (!menuVisible) {
        await page.getByRole('button', { name: '메뉴' }).click();
        await page.getByRole('link', { name: '통계' }).click();
        expect(new URL(page.url()).pathname).toBe('/admin/stats');
        expect(await page.getByRole('navigation', { name: '관리 메뉴' }).isVisible()).toBe(false);
      }
      await page.close();
    }
  });

  it("suspending a member in the console makes the member's writes answer 403 U0012; lifting restores them", async () => {
    const write = () =>
      e2e.api<LooseData>('POST', '/api/v1/boards', {
        token: member.token,
        body: { title: '정지 확인', code: '<p>글</p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
      });
    expect((await write()).status).toBe(200);

    const page = await adminPage();
    await page.getByRole('link', { name: '회원' }).click();
    await page.getByLabel('검색어').fill(member.nickName);
    await page.getByRole('button', { name: '검색' }).click();
    const row = page.locator(`tr[data-user-id="${member.id}"]`);
    await row.waitFor();
    await row.getByRole('button', { name: '정지' }).click();
    await row.getByLabel('정지 사유').fill('허위 매물 반복 등록');
    await row.getByRole('button', { name: '정지하기' }).click();
    await page.getByRole('status').waitFor();
    expect(await noticeText(page)).toBe(`${member.nickName} 회원을 정지했습니다.`);
    await row.getByRole('button', { name: '정지 해제' }).waitFor();
    expect(await row.textContent()).toContain('사유: 허위 매물 반복 등록');

    const refused = await eventually(async () => {
      const res = await write();
      return res.status === 403 ? res : undefined;
    }, 10_000);
    expect(refused.body).toEqual({ code: 'U0012', message: '이용이 정지된 계정입니다.' });

    await row.getByRole('button', { name: '정지 해제' }).click();
    await page.getByText(`${member.nickName} 회원의 정지를 해제했습니다.`).waitFor();
    await eventually(async () => (await write()).status === 200, 10_000);
    await page.close();
  });

  it('the statistics screen draws its charts from the API figures', async () => {
    const stats = await e2e.ok<LooseData>('GET', '/api/v1/admin/stats/users', { token: await e2e.signIn(admin.userName, PASSWORD) });
    for (const [name, viewport] of [
      ['desktop-1280', { width: 1280, height: 900 }],
      ['phone-390', PHONE_WIDTH],
    ] as const) {
      const page = await adminPage(viewport);
      // Through the menu: reloading the page would drop the in-memory session by design.
      if (!(await page.getByRole('navigation', { name: '관리 메뉴' }).isVisible())) await page.getByRole('button', { name: '메뉴' }).click();
      await page.getByRole('link', { name: '통계' }).click();
      await page.getByRole('heading', { name: '통계' }).waitFor();
      for (const id of ['chart-age', 'chart-join-path', 'chart-sign-ups', 'chart-deal-state', 'chart-region']) {
        await page.locator(`#${id} canvas`).waitFor();
        // Chart.js draws synchronously (no animation): a drawn canvas has coloured pixels.
        const painted = await page.locator(`#${id} canvas`).evaluate((canvas: PaintedCanvas) => {
          const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
          let count = 0;
          for (let i = 3; i < data.length; i += 4) if (data[i] > 0) count++;
          return count;
        });
        expect(painted).toBeGreaterThan(100);
      }
      const ageTotal = Number(await page.locator('#chart-age').getAttribute('data-total'));
      expect(ageTotal).toBe(Object.values(stats.byAge as Record<string, number>).reduce((a, b) => a + b, 0));
      expect(Number(await page.locator('#chart-sign-ups').getAttribute('data-total'))).toBeGreaterThanOrEqual(2);
      // One member joined through 검색 (search), one through 인스타그램; the chart names them in Korean.
      const countOf = (code: string, label: string) =>
        (stats.byJoinPath as Array<{ joinPath: string; count: number }>).find((j) => j.joinPath === code || j.joinPath === label)?.count;
      expect(countOf('SEARCH', '검색')).toBeGreaterThanOrEqual(1);
      const joinPathRows = await page.locator('#chart-join-path tr').allTextContents();
      expect(joinPathRows).toContain(`검색${countOf('SEARCH', '검색')}`);
      expect(joinPathRows).toContain(`인스타그램${countOf('INSTAGRAM', '인스타그램')}`);
      expect(joinPathRows).toHaveLength(stats.byJoinPath.length);
      await page.screenshot({ path: artifactPath(`stats-${name}.png`), fullPage: true });
      await page.close();
    }
  });

  it('an expired token is renewed once through reissue with the refresh cookie, and the call repeated with the new one', async () => {
    const page = await adminPage();
    const reissues = countCalls(page, '/api/v1/users/reissue');
    const sent = await expireNextCall(page, '/api/v1/admin/stats/users');
    await page.getByRole('link', { name: '통계' }).click();
    await page.locator('#chart-age canvas').waitFor();
    expect(reissues()).toBe(1);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatch(/^Bearer /);
    expect(sent[1]).not.toBe(sent[0]);
    // Still signed in with the renewed token: the next screen loads without another renewal.
    await page.getByRole('link', { name: '회원' }).click();
    await page.locator('tr[data-user-id]').first().waitFor();
    expect(reissues()).toBe(1);
    await page.close();
  });

  it('a session that cannot be renewed goes back to the sign-in form, which says the sign-in expired', async () => {
    const page = await adminPage();
    const reissues = countCalls(page, '/api/v1/users/reissue');
    await expireNextCall(page, '/api/v1/admin/stats/users');
    // The refresh cookie is gone, as after its lifetime or a logout in another tab.
    await browser.context.clearCookies();
    await page.getByRole('link', { name: '통계' }).click();
    await page.getByText(SESSION_EXPIRED_MESSAGE).waitFor();
    expect(await page.getByLabel('아이디').isVisible()).toBe(true);
    expect(await page.getByRole('navigation', { name: '관리 메뉴' }).count()).toBe(0);
    expect(reissues()).toBe(1);
    await page.close();
  });

  it("a call that gets no answer shows the console's network message", async () => {
    const page = await adminPage();
    await page.route('**/api/v1/admin/withdrawals**', (route) => route.abort('failed'));
    await page.getByRole('link', { name: '탈퇴' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(NETWORK_ERROR_MESSAGE);
    await page.close();
  });

  it('issue 40: a listing opens as members read it; two are rejected at once after a confirmation with the count; the trail and the member page show it', async () => {
    const body = '<p>본문에 <strong>강조</strong>가 있습니다</p><img src="x" onerror="window.__pwned = 1"><script>window.__pwned = 2</script>';
    const first = await e2e.ok<number>('POST', '/api/v1/houses', { token: member.token, body: { ...listing('일괄검토 첫째'), code: body } });
    const second = await e2e.ok<number>('POST', '/api/v1/houses', { token: member.token, body: listing('일괄검토 둘째') });
    const page = await adminPage();
    const search = page.getByRole('search', { name: '승인 대기 검색' });
    await search.getByLabel('제목 검색').fill('일괄검토');
    await search.getByRole('button', { name: '검색' }).click();
    const rows = [first, second].map((id) => page.locator(`tr[data-house-id="${id}"]`));
    await rows[0].waitFor();
    await rows[1].waitFor();
    // The unfiltered queue may still be shown for a moment (both rows are in it too): wait for the search's answer.
    await eventually(async () => (await page.locator('tr[data-house-id]').count()) === 2 || undefined, 10_000);

    // See before acting: the body as elements (nothing in it ran), the pictures, the author's other listings.
    await rows[0].getByRole('button', { name: '일괄검토 첫째 내용 보기' }).click();
    const preview = page.getByTestId('listing-preview');
    await preview.getByText('강조').waitFor();
    expect(await preview.locator('.listing-body strong').textContent()).toBe('강조');
    expect(await preview.textContent()).toContain('사진 1장');
    expect(await page.evaluate<unknown>('window.__pwned')).toBeUndefined();
    await expectNoAxeViolations(page, 'approval queue with a listing preview open');
    await preview.getByRole('button', { name: '닫기' }).click();

    // Two rows checked faster than the screen re-renders (both in one task, as two quick key presses can be) both
    // stay selected; the selection is then cleared for the keyboard's turn.
    await page.evaluate(`for (const id of [${first}, ${second}]) document.querySelector('tr[data-house-id="' + id + '"] input[type="checkbox"]').click()`);
    const bulk = page.getByRole('group', { name: '선택한 매물 처리' });
    await bulk.getByText('2건 선택됨').waitFor();
    await bulk.getByRole('button', { name: '선택 해제' }).click();
    await bulk.waitFor({ state: 'detached' });

    // Keyboard only: each row is selected with Space on its focused checkbox.
    for (const row of rows) {
      await row.getByRole('checkbox').focus();
      await page.keyboard.press('Space');
    }
    await bulk.getByRole('button', { name: '선택 반려' }).click();
    await bulk.getByLabel('반려 사유 (선택한 모든 매물에)').fill('주소를 확인할 수 없습니다.');
    await bulk.getByRole('button', { name: '2건 반려하기' }).click();
    const confirmation = page.getByRole('dialog', { name: '선택한 매물 반려' });
    expect(await confirmation.textContent()).toContain('2건');
    await confirmation.getByRole('button', { name: '2건 반려' }).click();
    const outcomes = page.getByTestId('bulk-outcomes');
    await outcomes.waitFor();
    expect(await outcomes.locator('[data-outcome="SUCCESS"]').count()).toBe(2);
    await rows[0].waitFor({ state: 'detached' });

    // The trail: both rejections, by this administrator, with the reason (it arrives through NATS).
    await page.getByRole('link', { name: '처리 기록' }).click();
    const auditSearch = page.getByRole('search', { name: '처리 기록 검색' });
    // The first list box is the action (a label's name includes its selected option, so it is not named exactly).
    await auditSearch.getByRole('combobox').first().selectOption('REJECT');
    await auditSearch.getByLabel('회원 번호').fill(String(member.id));
    await eventually(async () => {
      await auditSearch.getByRole('button', { name: '검색' }).click();
      await page.waitForTimeout(300);
      return (await page.locator('tr[data-audit-action="REJECT"]').count()) >= 2 || undefined;
    }, 20_000);
    await expectNoAxeViolations(page, 'audit trail (처리 기록) with rows');
    const trail = await page.getByTestId('audit-table').textContent();
    expect(trail).toContain(admin.userName);
    expect(trail).toContain('주소를 확인할 수 없습니다.');
    await page.screenshot({ path: artifactPath('audit.png'), fullPage: true });

    // The member's page shows what was done to them; an administrator's row offers no suspension.
    await page.getByRole('link', { name: '회원' }).click();
    const memberRow = page.locator(`tr[data-user-id="${member.id}"]`);
    await memberRow.waitFor();
    await memberRow.getByRole('button', { name: `${member.nickName} 처리 기록` }).click();
    const history = page.getByTestId('member-history');
    await history.locator('tr[data-audit-action="REJECT"]').first().waitFor();
    await expectNoAxeViolations(page, 'members with a member history open');
    const adminToken = await e2e.signIn(admin.userName, PASSWORD);
    const adminId = (await e2e.ok<LooseData>('GET', '/api/v1/users', { token: adminToken })).id as number;
    const usersSearch = page.getByRole('search');
    await usersSearch.getByLabel('검색어').fill(admin.userName);
    await usersSearch.getByRole('button', { name: '검색' }).click();
    const adminRow = page.locator(`tr[data-user-id="${adminId}"]`);
    await adminRow.waitFor();
    expect(await adminRow.getByRole('button', { name: '정지', exact: true }).count()).toBe(0);
    await page.close();
  });

  it('issue 38: the statistics screen shows the alerts sent per day as the API counts them', async () => {
    // A listing approved while a member's saved search (any listing, alert on) exists: at least one alert today.
    const houseId = await e2e.ok<number>('POST', '/api/v1/houses', { token: member.token, body: listing('알림 통계 확인 매물') });
    const adminToken = await e2e.signIn(admin.userName, PASSWORD);
    await e2e.ok('PUT', `/api/v1/houses/apply/${houseId}`, { token: adminToken, body: { approve: true } });
    const read = () => e2e.ok<{ days: Array<{ date: string; alerts: number }> }>('GET', '/api/v1/admin/stats/notifications?days=14', { token: adminToken });
    // The approval alerts every saved search it matches (earlier tests' included), one delivery at a time: the
    // count is compared once it has stopped moving (the same in two reads 2 s apart), not at its first alert.
    const stats = await eventually(async () => {
      const first = await read();
      if (first.days.at(-1)!.alerts < 1) return undefined;
      await new Promise((r) => setTimeout(r, 2_000));
      const second = await read();
      return JSON.stringify(second) === JSON.stringify(first) ? second : undefined;
    }, 20_000);
    expect(stats.days).toHaveLength(14);

    const page = await adminPage();
    await page.getByRole('link', { name: '통계' }).click();
    const table = page.getByRole('table', { name: '최근 14일 일별 관심 조건 알림 발송 수' });
    await table.waitFor();
    const rows = await table
      .locator('tbody tr')
      .evaluateAll((trs: Array<{ textContent: string | null; getAttribute(name: string): string | null }>) =>
        trs.map((tr) => ({ date: tr.getAttribute('data-date'), text: tr.textContent })),
      );
    expect(rows).toEqual(stats.days.map((d) => ({ date: d.date, text: `${d.date}${d.alerts.toLocaleString('ko-KR')}` })));
    await page.close();
  });

  it('issue 40: every console screen has no axe violations, at desktop and phone width', async () => {
    // Something in each list, so rows, their buttons and their labels are checked, not only empty states.
    await e2e.ok<number>('POST', '/api/v1/houses', { token: member.token, body: listing('접근성 확인 매물') });
    const reported = await e2e.ok<number>('POST', '/api/v1/houses', { token: member.token, body: listing('접근성 확인 신고 매물') });
    await e2e.ok('PUT', `/api/v1/houses/apply/${reported}`, { token: await e2e.signIn(admin.userName, PASSWORD), body: { approve: true } });
    await e2e.ok('PUT', `/api/v1/houses/report/${reported}`, { token: nonAdmin.token, body: { reportType: 'ETC', reportReason: '접근성 확인' } });
    // A member of its own asks to leave, so the 탈퇴 queue has a row (the file's other members stay).
    const leaver = await signUp('leaving_member', '탈퇴예정', '01070000003', '40대', '검색');
    await e2e.ok('POST', '/api/v1/users/withdrawal', { token: leaver.token, body: { reason: ['재가입'], content: '접근성 확인' } });
    const screens = [
      { link: '승인 대기', heading: '승인 대기 매물' },
      { link: '신고', heading: '신고된 매물' },
      { link: '회원', heading: '회원 관리' },
      { link: '탈퇴', heading: '탈퇴 요청' },
      { link: '고정 게시글', heading: '홍보 게시글 고정' },
      { link: '통계', heading: '통계' },
      { link: '처리 기록', heading: '처리 기록' },
    ];
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', PHONE_WIDTH],
    ] as const) {
      const page = await adminPage(viewport);
      if (name === 'desktop') {
        // The check itself works under the console's policy: an unlabelled field put into the page is found.
        await page.evaluate(`document.querySelector('main').insertAdjacentHTML('beforeend', '<input id="axe-probe">')`);
        expect((await axeViolations(page)).map((v) => v.id)).toContain('label');
        await page.evaluate(`document.getElementById('axe-probe').remove()`);
      }
      for (const screen of screens) {
        const menu = page.getByRole('navigation', { name: '관리 메뉴' });
        if (!(await menu.isVisible())) await page.getByRole('button', { name: '메뉴' }).click();
        await menu.getByRole('link', { name: screen.link, exact: true }).click();
        await page.getByRole('heading', { name: screen.heading, exact: true }).waitFor();
        // Loaded: no "loading" line left (the statistics screen has three, one per service).
        await eventually(async () => ((await page.getByText('불러오는 중…').count()) === 0 ? true : undefined), 10_000);
        if (screen.link === '탈퇴') await page.locator(`[data-user-id="${leaver.id}"]`).first().waitFor();
        await expectNoAxeViolations(page, `${screen.link} (${name})`);
        if (screen.link === '신고') {
          // A report opens the reported listing as members read it (issue 40 step 2): that view is checked too.
          const card = page.locator(`[data-house-id="${reported}"]`);
          await card.getByRole('button', { name: '접근성 확인 신고 매물 매물 내용 보기' }).click();
          await page.getByTestId('listing-preview').getByRole('button', { name: '닫기' }).waitFor();
          await eventually(async () => ((await page.getByText('불러오는 중…').count()) === 0 ? true : undefined), 10_000);
          await expectNoAxeViolations(page, `신고 with the reported listing open (${name})`);
          await page.getByTestId('listing-preview').getByRole('button', { name: '닫기' }).click();
        }
      }
      await page.close();
    }
  });

  it('issue 40: keyboard only: sign in, reach a screen through the menu, each focus visibly marked', async () => {
    const page = await browser.context.newPage();
    await page.goto(consoleUrl());
    // Strings, evaluated in the page: this file is type-checked without the DOM library.
    const focused = () =>
      page.evaluate<{ name: string; text: string; outline: string }>(
        `(() => { const e = document.activeElement; return { name: e.getAttribute('name') ?? '', text: (e.textContent ?? '').trim(), outline: getComputedStyle(e).outlineStyle }; })()`,
      );
    await page.keyboard.press('Tab');
    expect((await focused()).name).toBe('userName');
    await page.keyboard.type(admin.userName);
    await page.keyboard.press('Tab');
    expect((await focused()).name).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: '승인 대기 매물' }).waitFor();

    let reached = false;
    for (let presses = 0; presses < 20 && !reached; presses++) {
      await page.keyboard.press('Tab');
      const now = await focused();
      // Every stop on the way shows where the focus is.
      expect(now.outline).not.toBe('none');
      reached = now.text === '통계';
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: '통계', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/stats');
    await page.close();
  });

  it('issue 40: keyboard only: the listing preview, bulk selection, the confirmation dialog (focus in, Escape out, focus back), a reported post decided', async () => {
    const titles = ['키보드 첫째', '키보드 둘째'];
    const ids: number[] = [];
    for (const title of titles) ids.push(await e2e.ok<number>('POST', '/api/v1/houses', { token: member.token, body: listing(title) }));
    const boardId = await e2e.ok<number>('POST', '/api/v1/boards', {
      token: member.token,
      body: { title: '키보드 신고 게시글', code: '<p>광고 <em>본문</em></p>', category: null, imageUrls: [], prefixCategory: 'DEFAULT', fixed: false },
    });
    await e2e.ok('PUT', `/api/v1/boards/report/${boardId}`, { token: nonAdmin.token, body: { reportType: 'ADVERTISING_BOARD', reportReason: '광고 글' } });

    const page = await adminPage();
    // Strings, evaluated in the page: this file is type-checked without the DOM library.
    const focused = () =>
      page.evaluate<{ text: string; label: string; inDialog: boolean; inPreview: boolean; outline: string }>(
        `(() => { const e = document.activeElement; return { text: (e.textContent ?? '').trim(), label: e.getAttribute('aria-label') ?? (e.labels && e.labels[0] ? e.labels[0].textContent.trim() : ''), inDialog: !!e.closest('dialog'), inPreview: !!e.closest('.preview'), outline: getComputedStyle(e).outlineStyle }; })()`,
      );
    /** The focus moves in an effect, after the browser painted: wait for it to arrive where expected. */
    const expectFocus = async (expected: Partial<Awaited<ReturnType<typeof focused>>>) => {
      try {
        await eventually(async () => {
          expect(await focused()).toMatchObject(expected);
          return true;
        }, 5_000);
      } catch {
        expect(await focused()).toMatchObject(expected);
      }
    };
    /** Presses `key` until the focus is on what `reached` accepts (each stop visibly marked); false after 40. */
    const tabTo = async (reached: (now: Awaited<ReturnType<typeof focused>>) => boolean, key = 'Tab') => {
      for (let presses = 0; presses < 40; presses++) {
        await page.keyboard.press(key);
        const now = await focused();
        expect(now.outline).not.toBe('none');
        if (reached(now)) return true;
      }
      return false;
    };

    // The queue narrowed to these two by the search field, typed and sent with Enter.
    await page.getByRole('search', { name: '승인 대기 검색' }).getByLabel('제목 검색').focus();
    await page.keyboard.type('키보드');
    await page.keyboard.press('Enter');
    await eventually(async () => (await page.locator('tr[data-house-id]').count()) === 2 || undefined, 10_000);

    // The preview: Enter opens it with the focus on its 닫기; Escape closes it and the focus is back on its button.
    expect(await tabTo((now) => now.label === '키보드 첫째 내용 보기')).toBe(true);
    await page.keyboard.press('Enter');
    const preview = page.getByTestId('listing-preview');
    await preview.getByRole('heading', { name: '키보드 첫째' }).waitFor();
    await expectFocus({ text: '닫기', inPreview: true });
    await page.keyboard.press('Escape');
    await preview.waitFor({ state: 'detached' });
    await expectFocus({ label: '키보드 첫째 내용 보기' });

    // Both rows selected with Space on their check boxes, reached with Tab and Shift+Tab.
    expect(await tabTo((now) => now.label === '키보드 첫째 선택', 'Shift+Tab')).toBe(true);
    await page.keyboard.press('Space');
    expect(await tabTo((now) => now.label === '키보드 둘째 선택')).toBe(true);
    await page.keyboard.press('Space');
    expect(await tabTo((now) => now.text === '선택 반려', 'Shift+Tab')).toBe(true);
    await page.keyboard.press('Enter');
    // The reason form replaces the button: the focus is in its field.
    await expectFocus({ label: '반려 사유 (선택한 모든 매물에)' });
    await page.keyboard.type('키보드로 반려합니다.');
    await page.keyboard.press('Enter');

    // The confirmation: a modal dialog with the count, the focus inside on 취소; Escape closes it, the focus is back.
    const confirmation = page.getByRole('dialog', { name: '선택한 매물 반려' });
    await confirmation.waitFor();
    expect(await confirmation.textContent()).toContain('2건');
    await expectFocus({ text: '취소', inDialog: true });
    await expectNoAxeViolations(page, 'approval queue with the bulk rejection confirmation open');
    await page.keyboard.press('Escape');
    await confirmation.waitFor({ state: 'detached' });
    await expectFocus({ label: '반려 사유 (선택한 모든 매물에)' });
    expect(await page.locator('tr[data-house-id]').count()).toBe(2);
    // Again, confirmed this time from the keyboard (Shift+Tab from 취소 is the confirming button).
    await page.keyboard.press('Enter');
    await confirmation.waitFor();
    await expectFocus({ text: '취소', inDialog: true });
    await page.keyboard.press('Shift+Tab');
    await expectFocus({ text: '2건 반려', inDialog: true });
    await page.keyboard.press('Enter');
    const outcomes = page.getByTestId('bulk-outcomes');
    await outcomes.waitFor();
    expect(await outcomes.locator('[data-outcome="SUCCESS"]').count()).toBe(2);

    // 신고 → 게시글: the reported post opens as members read it; removing it asks first, in a dialog.
    await page.getByRole('link', { name: '신고' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: '신고된 매물', exact: true }).waitFor();
    expect(await tabTo((now) => now.text === '게시글')).toBe(true);
    await page.keyboard.press('Enter');
    const card = page.locator(`[data-board-id="${boardId}"]`);
    await card.waitFor();
    expect(await tabTo((now) => now.label === '키보드 신고 게시글 게시글 내용 보기')).toBe(true);
    await page.keyboard.press('Enter');
    const postPreview = page.getByTestId('board-preview');
    await postPreview.locator('.listing-body em').waitFor();
    await expectFocus({ text: '닫기', inPreview: true });
    await expectNoAxeViolations(page, '신고 (게시글) with the reported post open');
    await page.keyboard.press('Escape');
    await postPreview.waitFor({ state: 'detached' });
    await expectFocus({ label: '키보드 신고 게시글 게시글 내용 보기' });
    expect(await tabTo((now) => now.label === '처리 메모 (신고자에게 보임, 선택)')).toBe(true);
    await page.keyboard.type('광고라 삭제합니다');
    expect(await tabTo((now) => now.text === '게시글 삭제')).toBe(true);
    await page.keyboard.press('Enter');
    const removal = page.getByRole('dialog', { name: '게시글 삭제' });
    await removal.waitFor();
    await expectFocus({ text: '취소', inDialog: true });
    await page.keyboard.press('Escape');
    await removal.waitFor({ state: 'detached' });
    await expectFocus({ text: '게시글 삭제' });
    await page.keyboard.press('Enter');
    await removal.waitFor();
    await expectFocus({ text: '취소', inDialog: true });
    await page.keyboard.press('Shift+Tab');
    await expectFocus({ text: '삭제 확인' });
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached' });
    expect(await noticeText(page)).toBe("'키보드 신고 게시글' 게시글을 삭제했습니다.");
    const mine = await e2e.ok<Array<{ boardId: number; state: string; note: string | null }>>('GET', '/api/v1/boards/report/mine', { token: nonAdmin.token });
    expect(mine.find((r) => r.boardId === boardId)).toMatchObject({ state: 'REMOVED', note: '광고라 삭제합니다' });
    await page.close();
  });

  it('/docs (the reference) and /docs/try (Swagger UI) render the API document under their policy, and no page broke its policy', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${e2e.url}/docs`);
    // The reference is plain HTML: its operations are there at once, and one opens on a click.
    await page.locator('summary.opblock-summary').first().click();
    await page.locator('details.opblock[open] .responses-wrapper').first().waitFor();
    await page.goto(`${e2e.url}/docs/try`);
    // Swagger UI has drawn the document's title, or the error box naming the services this system leaves out.
    await page.locator('.swagger-ui .info .title, .swagger-ui .errors-wrapper').first().waitFor();
    expect(await page.locator('link[rel=stylesheet]').count()).toBeGreaterThanOrEqual(2);
    await page.close();
    expect(policyViolations).toEqual([]);
  });
});
