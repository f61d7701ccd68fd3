import { useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import { localWords } from '../i18n.js';
import { Field, failure, Message } from '../ui.js';

const fr = {
  logo_current: 'Logo actuel',
  logo_sent: 'Logo enregistré : vos clients le voient sur le portail.',
  logo_not_image: 'Ce fichier n’est pas une image PNG, JPEG ou WebP.',
  logo_too_big: 'Image trop lourde même réduite : choisissez une image plus simple.',
  logo_sending: 'Envoi du logo…',
} as const;
const t = localWords<keyof typeof fr>({
  fr,
  en: {
    logo_current: 'Current logo',
    logo_sent: 'Logo saved: your customers see it on the portal.',
    logo_not_image: 'This file is not a PNG, JPEG or WebP image.',
    logo_too_big: 'Image too heavy even shrunk: choose a simpler one.',
    logo_sending: 'Sending the logo…',
  },
});

/** The API's limits (functions/network/logo.ts): bytes of the file sent, pixels a side. */
const MAX_BYTES = 40 * 1024;
const SIDE = 256;
/** A chosen file past this is not even decoded (a phone's 12 MP photo is about 4 MB). */
const MAX_CHOSEN = 15 * 1024 * 1024;

const blobOf = (canvas: HTMLCanvasElement, type: string, quality?: number) =>
  new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, type, quality));

/**
 * The chosen image shrunk in the browser to at most 256 pixels a side (never enlarged), as PNG
 * (transparency kept), or as WebP then JPEG when the PNG is over the API's 40 KB: no image library
 * runs on the server, which only verifies the result. Undefined when the file is not an image
 * the browser can decode.
 */
async function shrink(file: File): Promise<Blob | undefined> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return undefined;
  }
  const scale = Math.min(1, SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(16, Math.round(bitmap.width * scale));
  canvas.height = Math.max(16, Math.round(bitmap.height * scale));
  const g = canvas.getContext('2d');
  if (!g) return undefined;
  g.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const png = await blobOf(canvas, 'image/png');
  if (png && png.size <= MAX_BYTES) return png;
  // JPEG (the server decodes PNG and JPEG only, not WebP) has no transparency: on white, as the portal's logo frame is.
  g.globalCompositeOperation = 'destination-over';
  g.fillStyle = '#fff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  return (await blobOf(canvas, 'image/jpeg', 0.8)) ?? undefined;
}

/** The file's bytes in base64, as the API takes them. */
const base64 = (blob: Blob) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });

/**
 * A logo chosen as a file: shrunk here, checked and stored by the API, then served from the
 * platform's own origin (the portal loads nothing from another site). Shown once uploaded.
 */
export function LogoUpload(props: { nasId: string; logoUrl: string; onDone: (url: string) => void }) {
  const [state, setState] = useState<{ text?: string; kind?: 'ok'; busy?: boolean }>({});
  const id = `${props.nasId}-logo-file`;
  // Only a logo of this origin is shown here: the console's CSP loads no other site's image.
  const own = props.logoUrl.startsWith(`${location.origin}/`);
  const choose = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    setState({ text: t('logo_sending'), kind: 'ok', busy: true });
    const blob = file.size <= MAX_CHOSEN ? await shrink(file) : undefined;
    if (!blob) return setState({ text: t('logo_not_image') });
    if (blob.size > MAX_BYTES) return setState({ text: t('logo_too_big') });
    try {
      const a = await api<{ logo_url: string }>('PUT', `/branding/${props.nasId}/logo`, {
        image: await base64(blob),
      });
      if (a.status === 200) {
        setState({ text: t('logo_sent'), kind: 'ok' });
        input.value = '';
        props.onDone(a.body.logo_url);
      } else {
        const code = a.body.error?.code;
        setState({
          text:
            code === 'ERR_UNSUPPORTED_MEDIA_TYPE'
              ? t('logo_not_image')
              : code === 'ERR_PAYLOAD_TOO_LARGE'
                ? t('logo_too_big')
                : errorText(a.body, a.status),
        });
      }
    } catch (err) {
      setState({ text: failure(err) });
    }
  };
  return (
    <Field id={id} label="logo_file">
      <div class="colour">
        {own ? <img class="logo-now" src={props.logoUrl} alt={t('logo_current')} /> : null}
        <input
          id={id}
          type="file"
          accept="image/png,image/jpeg,image/webp,image/gif"
          disabled={state.busy}
          onChange={(e) => void choose(e.currentTarget)}
        />
      </div>
      <Message text={state.text} {...(state.kind ? { kind: state.kind } : {})} />
    </Field>
  );
}
