import { type Package } from '@ledgerline/daml-lf';
import { encodeArchive, encodeDar, parsePackage } from '@ledgerline/daml-lf/testing';

/**
 * Daml-LF text packages for package preference: an interface package (`pref-iface` 1.0.0: `Iface:Describable`, whose
 * choice `Explain` answers the implementation's `describe`) and versions of one template package (`pref-memo`: a
 * `Main:Memo` owned by `owner`, implementing `Describable`; its choice `Describe` answers the version's own text, and
 * from 2.0.0 on a choice `Bump` that 1.0.0 does not have). What each choice answers tells which package's code ran.
 */

const parties = (p: string) => `Cons @Party [${p}] (Nil @Party)`;

export const IFACE_SRC = `
metadata ( 'pref-iface' : '1.0.0' )
module Iface {
  record @serializable View = { owner: Party } ;
  record @serializable Explain = {} ;
  interface (this: Describable) = {
    viewtype Iface:View;
    method owner: Party;
    method describe: Text;
    choice @nonConsuming Explain (self) (arg: Iface:Explain) : Text
      , controllers ${parties('call_method @Iface:Describable owner this')}
      to upure @Text (call_method @Iface:Describable describe this);
  } ;
}`;

function memoSrc(name: string, version: string, iface: string): string {
  const owner = 'Main:Memo {owner} this';
  const bump =
    version === '1.0.0'
      ? ''
      : `
    choice @nonConsuming Bump (self) (arg: Main:Bump) : Text
      , controllers ${parties(owner)}
      to upure @Text "bumped";`;
  return `
metadata ( '${name}' : '${version}' )
module Main {
  record @serializable Memo = { owner: Party, text: Text } ;
  record @serializable Archive = {} ;
  record @serializable Describe = {} ;${version === '1.0.0' ? '' : '\n  record @serializable Bump = {} ;'}
  template (this : Memo) = {
    precondition True;
    signatories ${parties(owner)};
    observers Nil @Party;
    choice Archive (self) (arg: Main:Archive) : Unit
      , controllers ${parties(owner)}
      to upure @Unit ();
    choice @nonConsuming Describe (self) (arg: Main:Describe) : Text
      , controllers ${parties(owner)}
      to upure @Text "memo ${version}";${bump}
    implements '${iface}':Iface:Describable {
      view = '${iface}':Iface:View { owner = ${owner} };
      method owner = ${owner};
      method describe = "implementation of ${version}";
    };
  } ;
}`;
}

export interface VersionedPackages {
  iface: { packageId: string; dar: Buffer };
  /** By version: the package id and its DAR (with the interface package as dependency). */
  memo: Record<string, { packageId: string; dar: Buffer }>;
}

/** The interface package and the template package (`pref-memo` unless named) in each of `versions`, encoded as DARs. */
export async function versionedPackages(versions: readonly string[], name = 'pref-memo'): Promise<VersionedPackages> {
  const iface: Package = parsePackage(IFACE_SRC);
  const ifaceId = encodeArchive(iface).packageId;
  const ifaceDar = await encodeDar(iface);
  const memo: VersionedPackages['memo'] = {};
  for (const v of versions) {
    const { dar, main } = await encodeDar(parsePackage(memoSrc(name, v, ifaceId)), [iface]);
    memo[v] = { packageId: main.packageId, dar };
  }
  return { iface: { packageId: ifaceId, dar: ifaceDar.dar }, memo };
}
