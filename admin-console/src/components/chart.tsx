/**
 * Chart.js on a canvas, plus the same figures as a visually hidden table for screen readers (and for tests,
 * which read the numbers from it instead of from pixels).
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Tooltip, Legend);

export interface ChartPoint {
  label: string;
  value: number;
}

export function ChartFigure(props: { id: string; title: string; kind: 'bar' | 'line'; points: ChartPoint[]; horizontal?: boolean }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const { kind, points, horizontal } = props;

  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, {
      type: kind,
      data: {
        labels: points.map((p) => p.label),
        datasets: [
          {
            label: props.title,
            data: points.map((p) => p.value),
            backgroundColor: kind === 'bar' ? '#2f7d5b' : 'rgba(47, 125, 91, 0.15)',
            borderColor: '#2f7d5b',
            borderWidth: kind === 'line' ? 2 : 0,
            pointRadius: kind === 'line' ? 2 : 0,
            fill: kind === 'line',
          },
        ],
      },
      options: {
        indexAxis: horizontal ? 'y' : 'x',
        responsive: true,
        maintainAspectRatio: false,
        // Drawn at once: a screenshot or a reader right after loading sees the final picture.
        animation: false,
        plugins: { legend: { display: false } },
        scales: { [horizontal ? 'x' : 'y']: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    return () => chart.destroy();
  }, [kind, horizontal, JSON.stringify(points)]);

  const total = points.reduce((sum, p) => sum + p.value, 0);
  return (
    <figure class="chart" id={props.id} data-total={total} data-points={points.length}>
      <figcaption>{props.title}</figcaption>
      <div class="chart-canvas">
        <canvas ref={canvas} role="img" aria-label={`${props.title} 차트`} />
      </div>
      <table class="visually-hidden">
        <caption>{props.title}</caption>
        <tbody>
          {points.map((p) => (
            <tr key={p.label}>
              <th scope="row">{p.label}</th>
              <td>{p.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
