/**
 * The screens' building blocks past the login page (selects, tables, statements, paged lists,
 * confirm steps, forms): a module of their own, so that they load with the screens and the
 * login page does not carry them.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type Answer, type ApiError, fieldErrors } from './api.js';
import { type Key, t } from './i18n.js';
import { Field, failure, useGet } from './ui.js';

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
export function Confirm(props: {
  label: Key;
  name: string;
  question: string;
  /** The confirming button's words (default "Oui, révoquer"). */
  yes?: Key;
  onYes: () => Promise<void>;
}) {
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
          {t(props.yes ?? 'revoke_yes')}
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
