import uPlot from 'uplot';

/**
 * The sales chart: uPlot (about 45 KB minified), in a chunk of its own that the dashboard loads
 * on first use, so that the login page does not carry it.
 */
export function drawSales(
  target: HTMLElement,
  days: { day: string; total: number }[],
  label: string,
  /** The reader's way of writing a day (26/11, never uPlot's US 11/26) and a number (1 500). */
  format: { day: (day: string) => string; num: (n: number) => string },
): { destroy(): void } {
  const xs = days.map((d) => Date.parse(`${d.day}T12:00:00Z`) / 1000);
  const ys = days.map((d) => d.total);
  const width = Math.max(280, target.clientWidth || 320);
  return new uPlot(
    {
      width,
      height: 200,
      legend: { show: false },
      cursor: { show: true, drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [
        {
          stroke: '#333',
          grid: { stroke: '#e5e5e5' },
          values: (_u, splits) =>
            splits.map((s) => format.day(new Date(s * 1000).toISOString().slice(0, 10))),
        },
        {
          stroke: '#333',
          grid: { stroke: '#e5e5e5' },
          size: 60,
          values: (_u, splits) => splits.map((n) => format.num(n)),
        },
      ],
      series: [
        {},
        {
          label,
          stroke: '#0f5f8c',
          fill: 'rgba(15,95,140,0.15)',
          width: 2,
          paths: uPlot.paths.bars?.({ size: [0.7] }),
        },
      ],
    },
    [xs, ys],
    target,
  );
}
