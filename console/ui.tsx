import type { ComponentChildren, JSX, Ref } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Answer, type ApiError, api, fieldErrors, Offline } from './api.js';
import { type Key, t } from './i18n.js';

/** A labelled field: the label is tied to its input, and a server error sits under it. */
export function Field(props: {
  id: string;
  label: Key;
  error?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={props.id}>{t(props.label)}</label>
      {props.children}
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
        else setState({ error: a.body.error?.message ?? String(a.status), status: a.status });
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
    inputRef?: Ref<HTMLInputElement>;
  },
) {
  const { id, label, error, onValue, inputRef, ...rest } = props;
  return (
    <Field id={id} label={label} error={error}>
      <input
        {...rest}
        id={id}
        ref={inputRef}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
    </Field>
  );
}

/**
 * A labelled select of options, each `[value, text]` or a value shown as it is (`first` before
 * them, such as an "all" choice).
 */
export function Select(props: {
  id: string;
  label: Key;
  value: string | undefined;
  onValue: (value: string) => void;
  options: readonly (string | readonly [string, string])[];
  first?: ComponentChildren;
  error?: string | undefined;
}) {
  return (
    <Field id={props.id} label={props.label} error={props.error}>
      <select id={props.id} value={props.value} onChange={(e) => props.onValue(e.currentTarget.value)}>
        {props.first}
        {props.options.map((o) => {
          const [value, text] = typeof o === 'string' ? [o, o] : o;
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
    </Field>
  );
}

/** A table with a header row of column titles; `children` are its body or bodies. */
export function Table(props: { head: Key[]; class?: string; children: ComponentChildren }) {
  return (
    <table class={props.class}>
      <thead>
        <tr>
          {props.head.map((k) => (
            <th key={k} scope="col">
              {t(k)}
            </th>
          ))}
        </tr>
      </thead>
      {props.children}
    </table>
  );
}

/** One line of a statement: what, how much; `field` names the cell for tests, `sum` the last line. */
export interface Line {
  label: ComponentChildren;
  value: ComponentChildren;
  field?: string;
  sum?: boolean;
}

/** Money as a statement prints it: a row heading and its amount a line. */
export function Statement(props: { lines: Line[]; testid?: string }) {
  return (
    <table class="statement" data-testid={props.testid}>
      <tbody>
        {props.lines.map((l, i) => (
          <tr key={i} class={l.sum ? 'sum' : undefined}>
            <th scope="row">{l.label}</th>
            <td data-field={l.field}>{l.value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A list read a page at a time (`base` is its GET path with a query, without the cursor): what
 * was shown stays, the next page comes under it. A new `base` (another day, another reseller)
 * starts again from its first page.
 */
export function usePaged<T>(base: string | undefined) {
  const [at, setAt] = useState<{ base?: string | undefined; cursor: string; shown: T[] }>({
    cursor: '',
    shown: [],
  });
  const same = at.base === base;
  const cursor = same ? at.cursor : '';
  const shown = same ? at.shown : [];
  const page = useGet<{ items: T[]; next_cursor?: string }>(
    base === undefined ? undefined : `${base}${cursor ? `&cursor=${cursor}` : ''}`,
  );
  const items = [...shown, ...(page.data?.items ?? [])];
  const next = page.data?.next_cursor;
  return {
    items,
    error: page.error,
    /** Nothing to show yet: the first page is on its way (or failed: `error`). */
    loading: !page.data && !shown.length,
    more: next ? () => setAt({ base, cursor: next, shown: items }) : undefined,
  };
}

/** "Voir plus", while there is a next page. */
export function More(props: { onClick: (() => void) | undefined }) {
  return props.onClick ? (
    <button type="button" class="secondary" onClick={props.onClick}>
      {t('more')}
    </button>
  ) : null;
}

/**
 * A destructive action behind a confirm step: the button, then the question with "yes" and
 * "cancel". `onYes` resolves once the action is done (the question then goes away).
 */
export function Confirm(props: { label: Key; name: string; question: string; onYes: () => Promise<void> }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="small secondary" onClick={() => setAsking(true)}>
        {t(props.label)} <span class="sr-only">{props.name}</span>
      </button>
    );
  return (
    <span class="confirm">
      <span>{props.question}</span>
      <span class="buttons">
        <button
          type="button"
          class="small danger"
          onClick={() => void props.onYes().finally(() => setAsking(false))}
        >
          {t('revoke_yes')}
        </button>
        <button type="button" class="small secondary" onClick={() => setAsking(false)}>
          {t('cancel')}
        </button>
      </span>
    </span>
  );
}

/**
 * A form's values, the server's errors by field, and whether it is being sent. `field(name)`
 * binds an Input or a Select to one value: its id (`<prefix>-<name>`, or `<prefix>-<o.id>`),
 * value, setter, and the error the server gives for it (under `o.error`, by default `name`).
 */
export function useForm<F extends Record<string, string>>(prefix: string | undefined, initial: F) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const field = (name: keyof F & string, o: { id?: string; error?: string } = {}) => ({
    id: prefix ? `${prefix}-${o.id ?? name}` : (o.id ?? name),
    value: values[name] as string,
    onValue: (value: string) => setValues((v) => ({ ...v, [name]: value })),
    error: errors[o.error ?? name],
  });
  return {
    values,
    setValues,
    errors,
    setErrors,
    busy,
    field,
    /** The submit handler: `send` runs while the form is busy; a failure to reach the API is said under it. */
    submit: (send: () => Promise<void>) => async (e: Event) => {
      e.preventDefault();
      setBusy(true);
      try {
        await send();
      } catch (err) {
        setErrors({ _: failure(err) });
      }
      setBusy(false);
    },
    /** True when the API answered `status`; otherwise its errors go under their fields. */
    answered: <T,>(a: Answer<T & ApiError>, status: number): boolean => {
      setErrors(a.status === status ? {} : fieldErrors(a.body));
      return a.status === status;
    },
  };
}
