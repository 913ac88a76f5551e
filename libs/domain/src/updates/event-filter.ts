import { packageNameKey, type EventFormat, type Filters } from './format';
import type { InterfaceDirectory, InterfaceImplementation } from './interface-views';

/**
 * An EventFormat compiled for matching (the filter semantics of Canton's transaction_filter.proto and FormatValidator).
 * Template filters are keyed `package-name:Module:Entity`; interface filters match the templates an InterfaceDirectory
 * says implement the interface (interface-views.ts), and nothing else. `filtersForAnyParty` makes the request
 * party-wildcard: every stakeholder/witness is reported.
 */
export interface CompiledEventFormat {
  /** Requested parties; null when the request is party-wildcard (`filtersForAnyParty` set). */
  readonly parties: ReadonlySet<string> | null;
  readonly verbose: boolean;
  /** Whether the event of `templateKey` is selected for some party of `relevant`; returns whether to include the blob. */
  match(relevant: readonly string[], templateKey: string): Match;
  /** witnessParties for an event whose relevant (stakeholder / informee) parties are `relevant`. */
  witnesses(relevant: readonly string[]): string[];
}

/** Selected or not; when selected, whether to include the blob and the interface views to render. */
export type Match = false | { blob: boolean; views?: readonly InterfaceImplementation[] };

interface PartyFilter {
  wildcard: boolean;
  wildcardBlob: boolean;
  /** template key → include created-event blob */
  templates: Map<string, boolean>;
  /** interface key → include the view, include the created-event blob */
  interfaces: Map<string, { view: boolean; blob: boolean }>;
}

function compileFilters(filters: Filters | null | undefined): PartyFilter {
  const out: PartyFilter = { wildcard: false, wildcardBlob: false, templates: new Map(), interfaces: new Map() };
  let real = 0;
  for (const c of filters?.cumulative ?? []) {
    const f = c.identifierFilter;
    if (!f || 'Empty' in f) continue;
    real++;
    if ('WildcardFilter' in f) {
      out.wildcard = true;
      out.wildcardBlob ||= f.WildcardFilter.value?.includeCreatedEventBlob ?? false;
    } else if ('TemplateFilter' in f) {
      const key = packageNameKey(f.TemplateFilter.value.templateId);
      out.templates.set(
        key,
        (out.templates.get(key) ?? false) || (f.TemplateFilter.value.includeCreatedEventBlob ?? false),
      );
    } else if ('InterfaceFilter' in f) {
      const v = f.InterfaceFilter.value;
      const key = packageNameKey(v.interfaceId);
      const before = out.interfaces.get(key);
      out.interfaces.set(key, {
        view: (before?.view ?? false) || (v.includeInterfaceView ?? false),
        blob: (before?.blob ?? false) || (v.includeCreatedEventBlob ?? false),
      });
    }
  }
  // No filters, or only Empty entries: a template wildcard.
  if (real === 0) out.wildcard = true;
  return out;
}

function matchOne(f: PartyFilter, templateKey: string, interfaces: InterfaceDirectory): Match {
  let m: Match = false;
  const t = f.templates.get(templateKey);
  if (t !== undefined) m = { blob: t || (f.wildcard && f.wildcardBlob) };
  else if (f.wildcard) m = { blob: f.wildcardBlob };
  if (f.interfaces.size === 0) return m;
  for (const impl of interfaces.implementationsOf(templateKey) ?? []) {
    const i = f.interfaces.get(impl.interfaceKey);
    if (i) m = merge(m, { blob: i.blob, views: i.view ? [impl] : undefined });
  }
  return m;
}

function merge(a: Match, b: Match): Match {
  if (!a) return b;
  if (!b) return a;
  const views = a.views && b.views ? [...new Set([...a.views, ...b.views])] : (a.views ?? b.views);
  return views ? { blob: a.blob || b.blob, views } : { blob: a.blob || b.blob };
}

export function compileEventFormat(ef: EventFormat, interfaces: InterfaceDirectory): CompiledEventFormat {
  const byParty = new Map<string, PartyFilter>();
  for (const [party, filters] of Object.entries(ef.filtersByParty ?? {})) byParty.set(party, compileFilters(filters));
  const any = ef.filtersForAnyParty ? compileFilters(ef.filtersForAnyParty) : null;
  const parties = any ? null : new Set(byParty.keys());
  return {
    parties,
    verbose: ef.verbose ?? false,
    match(relevant, templateKey) {
      let m: Match = false;
      // A filter for a template defined for any party prevails: it matches whoever the stakeholders are.
      if (any && relevant.length > 0) m = matchOne(any, templateKey, interfaces);
      for (const p of relevant) {
        const f = byParty.get(p);
        if (f) m = merge(m, matchOne(f, templateKey, interfaces));
      }
      return m;
    },
    witnesses(relevant) {
      return parties ? relevant.filter((p) => parties.has(p)) : [...relevant];
    },
  };
}

/** `<packageId>:<Module>:<Entity>` of a stored event + its package name → the key template filters are matched by. */
export function storedTemplateKey(templateId: string, packageName: string): string {
  const first = templateId.indexOf(':');
  return `${packageName}:${templateId.slice(first + 1)}`;
}
