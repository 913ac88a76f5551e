import { isPartyId } from '@ledgerline/canton';
import { invalidArgument, invalidField } from '../errors';

/**
 * The part of EventFormat (behaviour.md §C.5) that reassignment results need: validation, the parties it reads as
 * (authorization), and the per-event selection with ACS_DELTA semantics (reassignments always use it): an event is
 * shown when a requested party that is a stakeholder has a wildcard or the event's template; its witness parties are
 * the stakeholders ∩ requested parties, or all stakeholders for a party-wildcard request.
 *
 * Written locally because the shared event-format logic (libs/domain/src/updates/, branch `reads`) had not landed;
 * interface filters never match here (stored reassignments do not carry implemented interfaces).
 */

export interface RawIdentifierFilter {
  WildcardFilter?: { value?: { includeCreatedEventBlob?: boolean } };
  TemplateFilter?: { value?: { templateId?: string; includeCreatedEventBlob?: boolean } };
  InterfaceFilter?: { value?: { interfaceId?: string; includeInterfaceView?: boolean; includeCreatedEventBlob?: boolean } };
  Empty?: Record<string, never>;
}

export interface RawFilters {
  cumulative?: Array<{ identifierFilter?: RawIdentifierFilter }>;
}

export interface RawEventFormat {
  filtersByParty?: Record<string, RawFilters>;
  filtersForAnyParty?: RawFilters | null;
  verbose?: boolean;
}

export interface PartyFilter {
  /** Template wildcard, and whether it asks for created-event blobs. */
  wildcard: { includeCreatedEventBlob: boolean } | null;
  /** `#package-name:Module:Entity` → includeCreatedEventBlob. */
  templates: Map<string, boolean>;
}

export interface EventFormatSpec {
  byParty: Map<string, PartyFilter>;
  anyParty: PartyFilter | null;
  verbose: boolean;
}

/** The parties an EventFormat reads as: ReadAs(p) for each, ReadAsAnyParty if `anyParty` (§G.2 eventFormatClaims). */
export function eventFormatReaders(raw: RawEventFormat | null | undefined): { parties: string[]; anyParty: boolean } {
  if (!raw) return { parties: [], anyParty: false };
  return { parties: Object.keys(raw.filtersByParty ?? {}), anyParty: raw.filtersForAnyParty != null };
}

function toPartyFilter(raw: RawFilters | undefined): PartyFilter {
  const f: PartyFilter = { wildcard: null, templates: new Map() };
  const entries = (raw?.cumulative ?? []).map((c) => c.identifierFilter ?? {});
  const real = entries.filter((e) => e.WildcardFilter || e.TemplateFilter || e.InterfaceFilter);
  if (real.length === 0) return { wildcard: { includeCreatedEventBlob: false }, templates: f.templates };
  for (const e of real) {
    if (e.WildcardFilter) {
      const blob = !!e.WildcardFilter.value?.includeCreatedEventBlob;
      f.wildcard = { includeCreatedEventBlob: (f.wildcard?.includeCreatedEventBlob ?? false) || blob };
    } else if (e.TemplateFilter) {
      const id = e.TemplateFilter.value?.templateId ?? '';
      requirePackageNameReference(id);
      f.templates.set(id, (f.templates.get(id) ?? false) || !!e.TemplateFilter.value?.includeCreatedEventBlob);
    } else if (e.InterfaceFilter) {
      requirePackageNameReference(e.InterfaceFilter.value?.interfaceId ?? '');
    }
  }
  return f;
}

function requirePackageNameReference(id: string): void {
  const pkg = id.split(':')[0];
  if (!pkg.startsWith('#')) {
    throw invalidField('packageId', `Received an identifier with package ID ${pkg}, but expected a package name.`);
  }
}

/** Validates an EventFormat (it must not be empty; party keys must be party ids). */
export function validateEventFormat(raw: RawEventFormat): EventFormatSpec {
  const keys = Object.keys(raw.filtersByParty ?? {});
  if (keys.length === 0 && raw.filtersForAnyParty == null) {
    throw invalidArgument('filtersByParty and filtersForAnyParty cannot be empty simultaneously');
  }
  const byParty = new Map<string, PartyFilter>();
  for (const p of keys) {
    if (!isPartyId(p)) throw invalidField('filters_by_party', `Invalid party id '${p}'`);
    byParty.set(p, toPartyFilter(raw.filtersByParty![p]));
  }
  return { byParty, anyParty: raw.filtersForAnyParty == null ? null : toPartyFilter(raw.filtersForAnyParty), verbose: !!raw.verbose };
}

export interface EventView {
  stakeholders: readonly string[];
  packageName: string;
  /** `<packageId>:Module:Entity` */
  templateId: string;
}

export interface EventSelection {
  witnessParties: string[];
  includeCreatedEventBlob: boolean;
}

/** `#package-name:Module:Entity` of an event, the form template filters use. */
export const templateByName = (e: EventView): string => `#${e.packageName}:${e.templateId.split(':').slice(1).join(':')}`;

function matches(f: PartyFilter, e: EventView): { blob: boolean } | null {
  const byTemplate = f.templates.get(templateByName(e));
  if (!f.wildcard && byTemplate === undefined) return null;
  return { blob: (f.wildcard?.includeCreatedEventBlob ?? false) || (byTemplate ?? false) };
}

/** Whether the format shows the event, and with which witness parties; null = filtered out. */
export function selectEvent(spec: EventFormatSpec | null, e: EventView): EventSelection | null {
  if (!spec) return null;
  let shown = false;
  let blob = false;
  const any = spec.anyParty ? matches(spec.anyParty, e) : null;
  if (any) {
    shown = true;
    blob = any.blob;
  }
  for (const p of e.stakeholders) {
    const f = spec.byParty.get(p);
    const m = f ? matches(f, e) : null;
    if (m) {
      shown = true;
      blob ||= m.blob;
    }
  }
  if (!shown) return null;
  const witnessParties = spec.anyParty ? [...e.stakeholders] : e.stakeholders.filter((p) => spec.byParty.has(p));
  return { witnessParties, includeCreatedEventBlob: blob };
}
