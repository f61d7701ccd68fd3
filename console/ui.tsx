import type { ComponentChildren, JSX, Ref } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Answer, type ApiError, api, errorText, Offline } from './api.js';
import { type Key, t } from './i18n.js';

/** A labelled field: the label is tied to its input, and a server error sits under it. */
export function Field(props: {
  id: string;
  label: Key;
  error?: string | undefined;
  /** A line under the field (its input names it in aria-describedby): an example, a unit. */
  hint?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={props.id}>{t(props.label)}</label>
      {props.children}
      {props.hint ? (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.error ? (
        <p class="error" id={`${props.id}-error`} role="alert">
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

export function Message(props: { text: string | undefined; kind?: 'error' | 'ok' }) {
  if (!props.text) return null;
  return (
    <p class={props.kind === 'ok' ? 'ok' : 'error'} role={props.kind === 'ok' ? 'status' : 'alert'}>
      {props.text}
    </p>
  );
}

/** Reads one GET when a screen opens (and again when `deps` change); null while loading. */
export function useGet<T>(path: string | undefined, deps: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: string; status?: number }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!path) return;
    let live = true;
    setState({});
    api<T>('GET', path)
      .then((a: Answer<T & ApiError>) => {
        if (!live) return;
        if (a.status === 200) setState({ data: a.body, status: 200 });
        else setState({ error: errorText(a.body, a.status), status: a.status });
      })
      .catch((e) => live && setState({ error: failure(e) }));
    return () => {
      live = false;
    };
  }, [path, tick, ...deps]);
  return { ...state, reload: () => setTick((n) => n + 1) };
}

export function Loading(props: { error?: string | undefined }) {
  return props.error ? <Message text={props.error} /> : <p aria-busy="true">{t('loading')}</p>;
}

export function Card(props: { title: string; children: ComponentChildren; class?: string }) {
  return (
    <section class={`card ${props.class ?? ''}`} aria-label={props.title}>
      <h2>{props.title}</h2>
      {props.children}
    </section>
  );
}

/** What a screen says when a request could not be sent or the service failed. */
export const failure = (err: unknown): string => t(err instanceof Offline ? 'err_network' : 'err_server');

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'label' | 'ref'>;

/**
 * A labelled text input: typed values go to `onValue`; a server error is shown under it and tied
 * to it (aria-invalid, aria-describedby), so a screen reader reads it with the field.
 */
export function Input(
  props: InputProps & {
    id: string;
    label: Key;
    value: string;
    onValue: (value: string) => void;
    error?: string | undefined;
    hint?: string | undefined;
    inputRef?: Ref<HTMLInputElement>;
  },
) {
  const { id, label, error, hint, onValue, inputRef, ...rest } = props;
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      <input
        {...rest}
        id={id}
        ref={inputRef}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described || undefined}
      />
    </Field>
  );
}
