import { decodeArchivePayload, type Package } from '@ledgerline/daml-lf';
import { encodeArchive, encodeDar, parsePackage, type EncodedArchive } from '@ledgerline/daml-lf/testing';

/**
 * Test packages in Daml-LF text for interface views: `iv-api` defines the interface `Api:Asset` (view `Api:AssetView`);
 * `iv-token` has templates implementing it (`Token:Coin`, whose view fails for the label "broken") and one that does not
 * (`Token:Plain`). A second version of the token package can be asked for, with or without the interface instance.
 */

export const API_NAME = 'iv-api';
export const TOKEN_NAME = 'iv-token';
export const ASSET_FILTER = `#${API_NAME}:Api:Asset`;
export const BROKEN_LABEL = 'broken';

const API = `
metadata ( '${API_NAME}' : '1.0.0' )
module Api {
  record @serializable AssetView = { holder: Party, amount: Numeric 10, label: Text };
  interface (this: Asset) = { viewtype Api:AssetView; };
}`;

const one = (e: string) => `Cons @Party [${e}] (Nil @Party)`;

function token(apiId: string, version: string, withInstance: boolean): string {
  const api = (name: string) => `'${apiId}':Api:${name}`;
  const coin = (field: string) => `Token:Coin {${field}} this`;
  const instance = `
    implements ${api('Asset')} {
      view = case EQUAL @Text (${coin('label')}) "${BROKEN_LABEL}" of
          True -> ERROR @${api('AssetView')} "no view of a broken coin"
        | False -> ${api('AssetView')} { holder = ${coin('owner')}, amount = ${coin('amount')}, label = ${coin('label')} };
    };`;
  return `
metadata ( '${TOKEN_NAME}' : '${version}' )
module Token {
  record @serializable Coin = { issuer: Party, owner: Party, amount: Numeric 10, label: Text };
  record @serializable Burn = {};
  template (this: Coin) = {
    precondition True;
    signatories ${one(coin('issuer'))};
    observers ${one(coin('owner'))};
    choice Burn (self) (arg: Token:Burn) : Unit
      , controllers ${one(coin('issuer'))}
      , observers Nil @Party
      to upure @Unit ();${withInstance ? instance : ''}
  };
  record @serializable Plain = { issuer: Party, owner: Party };
  template (this: Plain) = {
    precondition True;
    signatories ${one('Token:Plain {issuer} this')};
    observers ${one('Token:Plain {owner} this')};
  };
}`;
}

export interface InterfacePackages {
  api: Package;
  apiArchive: EncodedArchive;
  token: Package;
  tokenArchive: EncodedArchive;
}

/** The API package and a token package (`version`, with the interface instance unless `withInstance` is false). */
export function interfacePackages(opts: { version?: string; withInstance?: boolean } = {}): InterfacePackages {
  // Decoded back from the archives: references within a package then carry its real id.
  const apiArchive = encodeArchive(parsePackage(API, { minor: '1' }));
  const api = decodeArchivePayload(apiArchive.payload, apiArchive.packageId);
  const tokenArchive = encodeArchive(
    parsePackage(token(api.id, opts.version ?? '1.0.0', opts.withInstance ?? true), { minor: '1' }),
  );
  return { api, apiArchive, token: decodeArchivePayload(tokenArchive.payload, tokenArchive.packageId), tokenArchive };
}

/** The DAR of the token package with the API package as its dependency. */
export async function interfacePackagesDar(p: InterfacePackages): Promise<Buffer> {
  return (await encodeDar({ dalf: p.tokenArchive.dalf }, [{ dalf: p.apiArchive.dalf }])).dar;
}
