/**
 * 통계: who signs up (age bands, join paths, sign-ups per day), the listings by state and region, and the
 * saved-search alerts sent per day (issue 38).
 */
import { useEffect, useState } from 'preact/hooks';
import { AGE_BANDS, USER_TYPES, type AdminApi, type AlertStats, type DealState, type HouseStats, type RentalType, type UserStats } from '../api/admin';
import { AGE_LABELS, DEAL_STATE_LABELS, RENTAL_TYPE_LABELS, USER_TYPE_LABELS, joinPathLabel } from '../api/labels';
import { ChartFigure } from '../components/chart';
import { errorText } from '../components/notice';

const DEAL_STATES: DealState[] = ['APPLYING', 'ONGOING', 'COMPLETED', 'REJECTED'];
const RENTAL_TYPES: RentalType[] = ['SALE', 'JEONSE', 'MONTHLYRENT'];
/** The API's default window: two weeks is enough to see whether alerts keep going out. */
const ALERT_DAYS = 14;

export function StatsScreen({ api }: { api: AdminApi }) {
  const [users, setUsers] = useState<UserStats | null>(null);
  const [houses, setHouses] = useState<HouseStats | null>(null);
  const [alerts, setAlerts] = useState<AlertStats | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let current = true;
    setErrors([]);
    // The parts come from three services: one failing still shows the others.
    api.stats.users().then(
      (data) => current && setUsers(data),
      (err: unknown) => current && setErrors((e) => [...e, `회원 통계: ${errorText(err)}`]),
    );
    api.stats.houses().then(
      (data) => current && setHouses(data),
      (err: unknown) => current && setErrors((e) => [...e, `매물 통계: ${errorText(err)}`]),
    );
    api.stats.alerts(ALERT_DAYS).then(
      (data) => current && setAlerts(data),
      (err: unknown) => current && setErrors((e) => [...e, `알림 통계: ${errorText(err)}`]),
    );
    return () => {
      current = false;
    };
  }, [generation]);

  return (
    <section aria-labelledby="stats-title">
      <header class="screen-header">
        <h2 id="stats-title">통계</h2>
        <button type="button" onClick={() => setGeneration((g) => g + 1)}>
          새로고침
        </button>
      </header>
      {errors.map((e) => (
        <p key={e} class="list-error" role="alert">
          {e}
        </p>
      ))}
      {users && (
        <>
          <h3>회원</h3>
          <div class="tiles">
            <div class="tile">
              <span>전체 회원</span>
              <strong data-testid="users-total">{users.total.toLocaleString('ko-KR')}</strong>
            </div>
            {USER_TYPES.map((t) => (
              <div class="tile" key={t}>
                <span>{USER_TYPE_LABELS[t]}</span>
                <strong>{(users.byUserType[t] ?? 0).toLocaleString('ko-KR')}</strong>
              </div>
            ))}
          </div>
          <div class="charts">
            <ChartFigure
              id="chart-age"
              title="연령대별 회원 수"
              kind="bar"
              points={AGE_BANDS.map((a) => ({ label: AGE_LABELS[a], value: users.byAge[a] ?? 0 }))}
            />
            <ChartFigure
              id="chart-join-path"
              title="가입 경로별 회원 수"
              kind="bar"
              points={users.byJoinPath.map((j) => ({ label: joinPathLabel(j.joinPath), value: j.count }))}
            />
            <ChartFigure
              id="chart-sign-ups"
              title="최근 30일 일별 가입자 수"
              kind="line"
              points={users.signUpsByDay.map((d) => ({ label: d.date.slice(5), value: d.count }))}
            />
          </div>
        </>
      )}
      {houses && (
        <>
          <h3>매물</h3>
          <div class="tiles">
            <div class="tile">
              <span>전체 매물</span>
              <strong data-testid="houses-total">{houses.total.toLocaleString('ko-KR')}</strong>
            </div>
            <div class="tile">
              <span>처리 대기 신고 매물</span>
              <strong>{houses.reportedOpen.toLocaleString('ko-KR')}</strong>
            </div>
            {RENTAL_TYPES.map((r) => (
              <div class="tile" key={r}>
                <span>{RENTAL_TYPE_LABELS[r]}</span>
                <strong>{(houses.byRentalType[r] ?? 0).toLocaleString('ko-KR')}</strong>
              </div>
            ))}
          </div>
          <div class="charts">
            <ChartFigure
              id="chart-deal-state"
              title="상태별 매물 수"
              kind="bar"
              points={DEAL_STATES.map((s) => ({ label: DEAL_STATE_LABELS[s], value: houses.byDealState[s] ?? 0 }))}
            />
            <ChartFigure
              id="chart-region"
              title="지역별 매물 수"
              kind="bar"
              horizontal
              points={houses.byRegion.map((r) => ({ label: r.region, value: r.count }))}
            />
          </div>
        </>
      )}
      {alerts && (
        <>
          <h3>알림</h3>
          {/* A plain table, not a chart: two short columns an administrator reads exactly, at any width. */}
          <table class="figures-table" data-testid="alert-stats">
            <caption>{`최근 ${alerts.days.length}일 일별 관심 조건 알림 발송 수`}</caption>
            <thead>
              <tr>
                <th scope="col">날짜</th>
                <th scope="col">알림 수</th>
              </tr>
            </thead>
            <tbody>
              {alerts.days.map((d) => (
                <tr key={d.date} data-date={d.date}>
                  <th scope="row">{d.date}</th>
                  <td>{d.alerts.toLocaleString('ko-KR')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {!users && !houses && !alerts && errors.length === 0 && <p class="muted">불러오는 중…</p>}
    </section>
  );
}
