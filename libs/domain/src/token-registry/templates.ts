import type { Package } from '@ledgerline/daml-lf';

/**
 * Template ids (`<package id>:<Module>:<Entity>`) by name: the registry reads contracts of templates it knows by package
 * name (`splice-amulet:Splice.AmuletRules:AmuletRules`), so every stored package of that name that has the template counts
 * (all versions of a package are one template to the ledger's upgrading).
 */
export function templateIdsNamed(packages: Iterable<Package>, templateKey: string): string[] {
  const [name, module, entity] = templateKey.split(':');
  const ids: string[] = [];
  for (const p of packages)
    if (p.metadata.name === name && p.modules.get(module)?.templates.has(entity))
      ids.push(`${p.id}:${module}:${entity}`);
  return ids.sort();
}

/**
 * The template ids of the stored templates that implement an interface, the interface named by package name
 * (`splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory`) as an interface
 * filter names it. `packageOf` resolves the interface's package (a template whose interface package is not known is
 * left out).
 */
export function templateIdsImplementing(
  packages: Iterable<Package>,
  interfaceKey: string,
  packageOf: (id: string) => Package | undefined,
): string[] {
  const [name, module, entity] = interfaceKey.split(':');
  const ids: string[] = [];
  for (const p of packages) {
    for (const [moduleName, m] of p.modules) {
      for (const [templateName, t] of m.templates) {
        for (const impl of t.implements.values()) {
          if (impl.iface.module !== module || impl.iface.name !== entity) continue;
          if (packageOf(impl.iface.packageId)?.metadata.name !== name) continue;
          ids.push(`${p.id}:${moduleName}:${templateName}`);
          break;
        }
      }
    }
  }
  return ids.sort();
}
