import uPlot from 'uplot';

/**
 * The sales chart: uPlot (about 45 KB minified), in a chunk of its own that the dashboard loads
 * on first use, so that the login page does not carry it.
 */
export function drawSales(
  target: HTMLElement,
  days: { day: string; total: number }[],
  label: string,
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
        { stroke: '#333', grid: { stroke: '#e5e5e5' } },
        { stroke: '#333', grid: { stroke: '#e5e5e5' }, size: 60 },
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
