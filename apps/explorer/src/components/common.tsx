import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { describeError, type Api } from '../api';
import { shortId, shortParty, type Access, type Right } from '../ledger';
import { hrefOf, type Route } from '../routes';

export interface Session {
  api: Api;
  userId: string;
  primaryParty: string;
  rights: Right[];
  access: Access;
}

export interface Explorer {
  session: Session;
  navigate(route: Route): void;
  /** Reads the user's rights again (after they changed). */
  refresh(): Promise<void>;
}

export const ExplorerContext = createContext<Explorer | null>(null);

export function useExplorer(): Explorer {
  const x = useContext(ExplorerContext);
  if (!x) throw new Error('outside the explorer');
  return x;
}

/** A link to a place of the explorer, followed without reloading the page (a modified click opens a new tab as usual). */
export function Link(props: {
  to: Route;
  class?: string;
  title?: string;
  current?: boolean;
  children: ComponentChildren;
}) {
  const { navigate } = useExplorer();
  return (
    <a
      href={hrefOf(props.to)}
      class={props.class}
      title={props.title}
      aria-current={props.current ? 'page' : undefined}
      onClick={(e: MouseEvent) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}

export const PartyLink = ({ party }: { party: string }) => (
  <Link to={{ view: 'party', party }} class="party" title={party}>
    {shortParty(party)}
  </Link>
);

export const ContractLink = ({ contractId }: { contractId: string }) => (
  <Link to={{ view: 'contract', contractId }} class="mono" title={contractId}>
    {shortId(contractId, 16)}
  </Link>
);

export const Parties = ({ parties }: { parties: readonly string[] }) =>
  parties.length === 0 ? (
    <span class="muted">none</span>
  ) : (
    <span class="chips">
      {parties.map((p) => (
        <PartyLink key={p} party={p} />
      ))}
    </span>
  );

export type Loaded<T> = { state: 'loading' } | { state: 'done'; value: T } | { state: 'failed'; error: string };

/** Runs `load` whenever `deps` change (the previous run's result is discarded), with the failure as readable text. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    const abort = new AbortController();
    setResult({ state: 'loading' });
    load(abort.signal).then(
      (value) => !abort.signal.aborted && setResult({ state: 'done', value }),
      (e) => !abort.signal.aborted && setResult({ state: 'failed', error: describeError(e) }),
    );
    return () => abort.abort();
  }, deps);
  return result;
}

export function Loading<T>(props: { what: string; loaded: Loaded<T>; children: (value: T) => ComponentChildren }) {
  if (props.loaded.state === 'loading')
    return (
      <p class="muted" aria-busy="true">
        Loading {props.what}…
      </p>
    );
  if (props.loaded.state === 'failed')
    return <ErrorNote>{`Could not load ${props.what}: ${props.loaded.error}`}</ErrorNote>;
  return <>{props.children(props.loaded.value)}</>;
}

export const ErrorNote = ({ children }: { children: ComponentChildren }) => (
  <p class="error" role="alert">
    {children}
  </p>
);

/** Rows of label/value pairs; values that are absent are left out. */
export function Facts({ rows }: { rows: Array<[string, ComponentChildren | null | undefined]> }) {
  return (
    <dl class="facts">
      {rows
        .filter(([, v]) => v !== null && v !== undefined && v !== '')
        .map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
    </dl>
  );
}

/** A table: one header row of column names, then a row of cells per item. */
export function Table<T>(props: {
  columns: string[];
  items: readonly T[];
  keyOf: (item: T, i: number) => string | number;
  cells: (item: T) => ComponentChildren[];
}) {
  return (
    <table>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.items.map((item, i) => (
          <tr key={props.keyOf(item, i)}>
            {props.cells(item).map((cell, j) => (
              <td key={j}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RawJson({ value, label = 'Raw JSON' }: { value: unknown; label?: string }) {
  return (
    <details class="raw">
      <summary>{label}</summary>
      <pre tabIndex={0}>{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

const PARTY = /^[^:\s]{1,185}::1220[0-9a-f]{64}$/;
const CONTRACT = /^00[0-9a-f]{64,}$/;

/**
 * A Daml value in the JSON API's encoding, readably: records as nested label/value lists, lists numbered, party ids
 * and contract ids as links, everything else as text.
 */
export function DamlValue({ value, depth = 0 }: { value: unknown; depth?: number }) {
  if (value === null || value === undefined) return <span class="muted">None</span>;
  if (typeof value === 'string') {
    if (PARTY.test(value)) return <PartyLink party={value} />;
    if (CONTRACT.test(value)) return <ContractLink contractId={value} />;
    return <span class="value">{value}</span>;
  }
  if (typeof value !== 'object') return <span class="value">{String(value)}</span>;
  if (depth > 12) return <span class="mono">{JSON.stringify(value)}</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="muted">[]</span>;
    return (
      <ol class="daml-list">
        {value.map((v, i) => (
          <li key={i}>
            <DamlValue value={v} depth={depth + 1} />
          </li>
        ))}
      </ol>
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return <span class="muted">{'{}'}</span>;
  return (
    <dl class="daml-record">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>
            <DamlValue value={v} depth={depth + 1} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

let pageJustLoaded = true;

/**
 * Moves keyboard focus to the view's heading when the view changes within the page (screen readers announce the new
 * place); a freshly loaded page keeps the browser's own start, so that Tab reaches "Skip to content" first.
 */
export function useFocusHeading(key: string) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (pageJustLoaded) pageJustLoaded = false;
    else ref.current?.focus();
  }, [key]);
  return ref;
}

export const time = (iso: string | undefined) =>
  iso ? <time dateTime={iso}>{iso.replace('T', ' ').replace('Z', ' UTC')}</time> : null;
