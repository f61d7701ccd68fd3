import qrcode from 'qrcode-generator';

/**
 * A QR code as SVG drawn from its modules (no innerHTML, no image request): one path of unit
 * squares, with the quiet zone of four modules that phone scanners need.
 */
export function Qr(props: { text: string; size: string; label: string }) {
  const qr = qrcode(0, 'M');
  qr.addData(props.text);
  qr.make();
  const n = qr.getModuleCount();
  let d = '';
  for (let r = 0; r < n; r++)
    for (let c = 0; c < n; c++) if (qr.isDark(r, c)) d += `M${c + 4} ${r + 4}h1v1h-1z`;
  const view = n + 8;
  return (
    <svg
      class="qr"
      viewBox={`0 0 ${view} ${view}`}
      width={props.size}
      height={props.size}
      role="img"
      aria-label={props.label}
      shape-rendering="crispEdges"
    >
      <rect width={view} height={view} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
