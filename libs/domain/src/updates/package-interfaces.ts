import { comparePackageVersions, valueToJson } from '@ledgerline/canton';
import type { Engine, EngineError, Package } from '@ledgerline/daml-lf';
import { OK_STATUS, statusOf, storedErrorOf } from '../command-completions/status';
import { engineRejection } from '../command-interpretation/interpret-commands';
import type { InterfaceDirectory, InterfaceImplementation, JsInterfaceView, ViewedContract } from './interface-views';

/**
 * The interfaces of the stored packages' templates (Canton's PackageMetadata `interfacesImplementedBy` and
 * EventProjectionProperties), read from the engine's decoded packages; views are evaluated by the engine at read time
 * (LfValueTranslation's `computeInterfaceView`).
 *
 * Matching is by name, as Canton resolves an interface filter: `#pkg:M:I` names the interface in every stored package
 * called `pkg`; a template (by `package-name:Module:Entity`) matches when a stored package of its name has an instance
 * of one of those interfaces. Each matched interface id gets a view, computed with the instance of the highest stored
 * version of the contract's package name that implements it (IndexServiceImpl's view package upgrade, without vetting:
 * every stored package counts), on the contract's create argument.
 *
 * Computed views are cached per (contract, interface, implementing package): contracts and packages never change.
 * Failures are not: they are rare, and one may come from a package not decoded yet.
 */

/**
 * A view's failure is a status as Canton serializes an error (`CODE(category,correlation id): cause` and its details); a
 * read has no correlation id to give it, which Canton writes as 0 (ErrorCodeMsg.codeStr).
 */
const NO_CORRELATION_ID = '0';

/** A view as computed: the value (JSON) or the engine's failure. */
type Computed = { ok: true; value: unknown } | { ok: false; error: EngineError };

interface Index {
  /** template key → its implementations (every interface id a stored package of that name implements; maybe none). */
  readonly byTemplate: Map<string, InterfaceImplementation[]>;
  /** `<package name>:<M>:<E>/<interface id>` → the packages of that name implementing it, highest version first. */
  readonly implementors: Map<string, string[]>;
}

export interface PackageInterfacesOptions {
  /** How many computed views to keep (default 10,000). */
  cacheSize?: number;
}

export function packageInterfaces(engine: Engine, opts: PackageInterfacesOptions = {}): InterfaceDirectory {
  const cacheSize = opts.cacheSize ?? 10_000;
  const cache = new Map<string, Computed>();
  let indexed = -1;
  let index: Index = { byTemplate: new Map(), implementors: new Map() };

  const current = (): Index => {
    if (engine.packages.size !== indexed) {
      indexed = engine.packages.size;
      index = buildIndex(engine.packages.all(), (id) => engine.packages.getPackage(id), view);
    }
    return index;
  };

  function compute(templateId: string, interfaceId: string, c: ViewedContract): Computed {
    const [packageId, module, name] = templateId.split(':');
    const [ip, im, iname] = interfaceId.split(':');
    const r = engine.interfaceView(
      { packageId, module, name },
      { packageId: ip, module: im, name: iname },
      { json: c.createArgument },
    );
    return r.tag === 'view' ? { ok: true, value: valueToJson(r.proto) } : { ok: false, error: r.error };
  }

  function view(interfaceId: string, c: ViewedContract): JsInterfaceView {
    const qualified = c.templateId.slice(c.templateId.indexOf(':') + 1);
    const implementing =
      current().implementors.get(`${c.packageName}:${qualified}/${interfaceId}`)?.[0] ?? c.representativePackageId;
    const key = `${c.contractId}/${interfaceId}/${implementing}`;
    let computed = cache.get(key);
    if (!computed) {
      computed = compute(`${implementing}:${qualified}`, interfaceId, c);
      if (computed.ok) {
        if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
        cache.set(key, computed);
      }
    }
    return computed.ok
      ? { interfaceId, viewStatus: OK_STATUS, viewValue: computed.value, implementationPackageId: implementing }
      : {
          interfaceId,
          viewStatus: statusOf(storedErrorOf(engineRejection(computed.error)), NO_CORRELATION_ID),
          viewValue: null,
          implementationPackageId: implementing,
        };
  }

  return { implementationsOf: (templateKey) => current().byTemplate.get(templateKey) };
}

function buildIndex(
  packages: Iterable<Package>,
  packageOf: (id: string) => Package | undefined,
  view: (interfaceId: string, c: ViewedContract) => JsInterfaceView,
): Index {
  const byTemplate = new Map<string, Map<string, InterfaceImplementation>>();
  const implementors = new Map<string, Package[]>();
  for (const p of packages) {
    for (const [moduleName, m] of p.modules) {
      for (const [templateName, t] of m.templates) {
        const templateKey = `${p.metadata.name}:${moduleName}:${templateName}`;
        const byId = byTemplate.get(templateKey) ?? new Map<string, InterfaceImplementation>();
        byTemplate.set(templateKey, byId);
        for (const [interfaceId, impl] of t.implements) {
          const iface = packageOf(impl.iface.packageId);
          // A package whose dependencies are not decoded (yet) cannot have its instances matched by name.
          if (!iface) continue;
          if (!byId.has(interfaceId))
            byId.set(interfaceId, {
              interfaceKey: `${iface.metadata.name}:${impl.iface.module}:${impl.iface.name}`,
              interfaceId,
              view: (c) => view(interfaceId, c),
            });
          const k = `${templateKey}/${interfaceId}`;
          implementors.set(k, [...(implementors.get(k) ?? []), p]);
        }
      }
    }
  }
  const byVersion = (a: Package, b: Package) =>
    comparePackageVersions(b.metadata.version, a.metadata.version) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
  return {
    byTemplate: new Map([...byTemplate].map(([k, v]) => [k, [...v.values()]])),
    implementors: new Map([...implementors].map(([k, ps]) => [k, ps.sort(byVersion).map((p) => p.id)])),
  };
}
