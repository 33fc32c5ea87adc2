import { FormEvent, InputHTMLAttributes, ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import { describe } from './api';

/** A page: its level-1 heading, focused after each navigation so keyboard and screen-reader users start there. */
export function Page({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Console`;
    heading.current?.focus();
  }, [title]);
  return (
    <section className="page">
      <header className="page-head">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** What went wrong, announced. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {describe(error)}
    </p>
  );
}

/** A secret or link shown once, with a button that copies it. */
export function CopyField({ label, value, note }: { label: string; value: string; note?: string }) {
  const id = useId();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(value).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div className="copy">
      <label htmlFor={id}>{label}</label>
      <div className="row">
        <input id={id} readOnly value={value} onFocus={(e) => e.currentTarget.select()} size={Math.min(80, value.length + 2)} />
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      {note && <p className="note">{note}</p>}
    </div>
  );
}

/** Data a page loads: `reload()` after a change; `error` when it failed. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: unknown; loading: boolean; reload: () => Promise<void> } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const run = useCallback(load, deps);
  const reload = useCallback(async () => {
    try {
      const data = await run();
      setState({ data, error: undefined, loading: false });
    } catch (error) {
      setState((previous) => ({ data: previous.data, error, loading: false }));
    }
  }, [run]);
  useEffect(() => {
    setState((previous) => ({ ...previous, loading: true }));
    void reload();
  }, [reload]);
  return { ...state, reload };
}

/** A button's action with its pending state and error. */
export function useAction<A extends unknown[]>(
  action: (...args: A) => Promise<void>,
): { run: (...args: A) => Promise<void>; pending: boolean; error: unknown } {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = async (...args: A) => {
    setPending(true);
    setError(undefined);
    try {
      await action(...args);
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  };
  return { run, pending, error };
}

/** A form's action: `onSubmit` runs it (instead of the browser's submit). */
export function useFormAction(action: () => Promise<void>): {
  run: () => Promise<void>;
  onSubmit: (event: FormEvent) => void;
  pending: boolean;
  error: unknown;
} {
  const state = useAction(action);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void state.run();
  };
  return { ...state, onSubmit };
}

/** A button that runs an action, disabled while it is pending; `label` names it for screen readers when its text is not enough. */
export function RunButton({
  run,
  pending,
  label,
  children,
}: {
  run: () => Promise<void>;
  pending: boolean;
  label?: string;
  children: ReactNode;
}) {
  return (
    <button type="button" onClick={() => void run()} disabled={pending} aria-label={label}>
      {children}
    </button>
  );
}

/** A form's submit button, disabled while the form's action is pending. */
export function SubmitButton({ pending, children }: { pending: boolean; children: ReactNode }) {
  return (
    <button type="submit" disabled={pending}>
      {children}
    </button>
  );
}

/** A labelled text input holding `value`; `onChange` gets the new text. Other attributes (type, required, …) are the input's. */
export function Field({
  label,
  value,
  onChange,
  ...input
}: { label: string; value: string; onChange: (value: string) => void } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'value' | 'onChange'
>) {
  return (
    <label>
      {label}
      <input {...input} value={value} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

/** A labelled choice among `options` (value, label); `value` is one of them. */
export function Select<V extends string>({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: V;
  onChange: (value: V) => void;
  options: ReadonlyArray<readonly [V, string]>;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value as V)}>
        {options.map(([option, text]) => (
          <option key={option} value={option}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A status filter's options: "Any" (the empty value), then each status, capitalised. */
export function anyOf<V extends string>(statuses: readonly V[]): Array<readonly [V | '', string]> {
  return [['', 'Any'], ...statuses.map((status) => [status, status.charAt(0).toUpperCase() + status.slice(1)] as const)];
}

/** A column of a `Table`: its heading ('' for actions, named for screen readers), an item's cell, and that cell's class. */
export type Column<T> = readonly [heading: string, cell: (item: T) => ReactNode, className?: string];

type RowKey = string | number;
/** What keys a row: `rowKey`, which items with an `id` may leave out (their id keys them). */
type RowKeyOf<T> = [T] extends [{ id: RowKey }] ? { rowKey?: (item: T) => RowKey } : { rowKey: (item: T) => RowKey };

/** A list as a table, nothing until the rows load; `current` marks a row `aria-current`, `empty` replaces an empty table. */
export function Table<T>({
  caption,
  columns,
  rows,
  rowKey = (item) => (item as { id: RowKey }).id,
  current,
  empty,
  className,
}: {
  caption: string;
  columns: ReadonlyArray<Column<T>>;
  rows: readonly T[] | undefined;
  current?: (item: T) => boolean;
  empty?: string;
  className?: string;
} & RowKeyOf<T>) {
  if (!rows) return null;
  if (rows.length === 0 && empty !== undefined) return <p role="status">{empty}</p>;
  return (
    <table className={className}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map(([heading]) => (
            <th scope="col" key={heading}>
              {heading || <span className="sr-only">Actions</span>}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((item) => (
          <tr key={rowKey(item)} aria-current={current?.(item) ? 'true' : undefined}>
            {columns.map(([heading, cell, cellClass]) => (
              <td key={heading} className={cellClass}>
                {cell(item)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
/** A contract timestamp (`…+00:00`) in the member's time zone. */
export const when = (at: string | null | undefined): string => (at ? TIME.format(new Date(at)) : '—');
