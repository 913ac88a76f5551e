import { catalogEntry, type TemplateCatalog, type TemplateCatalogEntry } from './template-catalog';
import { packageIdForName, templateIdOf, type ResolvedTemplate, type TemplateRef } from './template-id';

/** A template a command names, resolved, with what the catalog says about it. */
export interface DirectoryTemplate extends ResolvedTemplate {
  /** The catalog's entry for it (signatory and observer fields), if any. */
  entry: TemplateCatalogEntry | undefined;
  /** Whether its package is stored on this participant: then the Daml engine runs it, else the generic model builds it. */
  stored?: boolean;
}

/**
 * Where the builder learns what a command's template reference denotes: the one seam where template resolution happens,
 * so that another source (a package store choosing the preferred package of a `#package-name`) can replace it.
 */
export interface TemplateDirectory {
  /** The template `ref` (written as `written` in the command) denotes. */
  resolve(written: string, ref: TemplateRef): DirectoryTemplate;
  /** Whether `ref` names the template of a stored contract (`<package id>:<Module>:<Entity>` of package `packageName`). */
  names(ref: TemplateRef, contract: { templateId: string; packageName: string }): boolean;
}

/**
 * The generic template model's directory: `#name` → (packageIdForName(name), name); a package id → (that id, the
 * catalog's `packageName` for it, else the id itself). Catalog entries are looked up by the template id as written, then
 * in its package-id form.
 */
export function catalogTemplateDirectory(catalog: TemplateCatalog): TemplateDirectory {
  return {
    resolve(written, ref) {
      const direct = catalogEntry(catalog, written, written);
      let t: ResolvedTemplate;
      if (ref.packageRef.startsWith('#')) {
        const name = ref.packageRef.slice(1);
        t = {
          packageId: packageIdForName(name),
          packageName: name,
          moduleName: ref.moduleName,
          entityName: ref.entityName,
        };
      } else {
        t = {
          packageId: ref.packageRef,
          packageName: direct?.packageName ?? ref.packageRef,
          moduleName: ref.moduleName,
          entityName: ref.entityName,
        };
      }
      return { ...t, entry: direct ?? catalogEntry(catalog, written, templateIdOf(t)) };
    },
    names(ref, contract) {
      const [packageId, moduleName, entityName] = contract.templateId.split(':');
      const samePackage = ref.packageRef.startsWith('#')
        ? ref.packageRef.slice(1) === contract.packageName
        : ref.packageRef === packageId;
      return samePackage && ref.moduleName === moduleName && ref.entityName === entityName;
    },
  };
}
