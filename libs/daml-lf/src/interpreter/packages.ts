/**
 * The packages an evaluation can see, with the per-definition compilation cache. One `CompiledPackages` is meant to live
 * as long as the process (packages are immutable by id): definitions are compiled on first use and top-level values
 * evaluated once.
 */
import type {
  DefDataType,
  DefException,
  DefInterface,
  DefTemplate,
  Module,
  Package,
  PackageId,
  QualifiedName,
} from '../language/ast';
import type { DefRef } from './code';
import { internal } from './errors';

const key = (q: QualifiedName) => `${q.packageId}:${q.module}:${q.name}`;

export class CompiledPackages {
  private readonly packages = new Map<PackageId, Package>();
  private readonly defs = new Map<string, DefRef>();
  /** Per-template compiled pieces (precondition, signatories …), filled by the engine. */
  readonly templateCache = new Map<string, unknown>();

  constructor(packages: Iterable<Package> = []) {
    for (const p of packages) this.add(p);
  }

  add(pkg: Package): void {
    if (!this.packages.has(pkg.id)) this.packages.set(pkg.id, pkg);
  }

  has(id: PackageId): boolean {
    return this.packages.has(id);
  }

  /** How many packages are loaded (packages are only ever added: a changed size means new packages). */
  get size(): number {
    return this.packages.size;
  }

  /** The loaded packages, in the order they were added. */
  all(): IterableIterator<Package> {
    return this.packages.values();
  }

  getPackage(id: PackageId): Package | undefined {
    return this.packages.get(id);
  }

  /** Package ids reachable from `roots` (imports, transitively) that are not loaded yet. */
  missingDependencies(roots: Iterable<PackageId>): PackageId[] {
    const seen = new Set<PackageId>();
    const missing: PackageId[] = [];
    const todo = [...roots];
    while (todo.length) {
      const id = todo.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const p = this.packages.get(id);
      if (!p) missing.push(id);
      else todo.push(...p.imports);
    }
    return missing;
  }

  module(packageId: PackageId, module: string): Module {
    const p = this.packages.get(packageId);
    if (!p) throw internal(`package ${packageId} is not loaded`);
    const m = p.modules.get(module);
    if (!m) throw internal(`module ${module} not found in package ${packageId}`);
    return m;
  }

  private lookup<T>(q: QualifiedName, what: string, get: (m: Module) => T | undefined): T {
    const v = get(this.module(q.packageId, q.module));
    if (v === undefined) throw internal(`${what} ${key(q)} not found`);
    return v;
  }

  dataType(q: QualifiedName): DefDataType {
    return this.lookup(q, 'data type', (m) => m.dataTypes.get(q.name));
  }
  template(q: QualifiedName): DefTemplate {
    return this.lookup(q, 'template', (m) => m.templates.get(q.name));
  }
  findTemplate(q: QualifiedName): DefTemplate | undefined {
    return this.packages.get(q.packageId)?.modules.get(q.module)?.templates.get(q.name);
  }
  iface(q: QualifiedName): DefInterface {
    return this.lookup(q, 'interface', (m) => m.interfaces.get(q.name));
  }
  findInterface(q: QualifiedName): DefInterface | undefined {
    return this.packages.get(q.packageId)?.modules.get(q.module)?.interfaces.get(q.name);
  }
  exception(q: QualifiedName): DefException | undefined {
    return this.packages.get(q.packageId)?.modules.get(q.module)?.exceptions.get(q.name);
  }

  /** The (lazily compiled) top-level value `q`. */
  defRef(q: QualifiedName): DefRef {
    const k = key(q);
    let d = this.defs.get(k);
    if (!d) {
      const def = this.lookup(q, 'value', (m) => m.values.get(q.name));
      d = { ref: q, def };
      this.defs.set(k, d);
    }
    return d;
  }
}
