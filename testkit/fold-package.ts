import { encodeDar, parsePackage, type EncodedDar } from '@ledgerline/daml-lf/testing';

/**
 * Our own package (LF text, encoded with our encoder) for folds over long lists passed as a choice argument: a `Folder`
 * of an `owner`, with three non-consuming choices that sum a `List Int64` — `FoldLeft` (the FOLDL builtin), `FoldRight`
 * (FOLDR: its function is applied from the end of the list) and `Recurse` (a recursive LF function, not a tail call:
 * one pending addition per element). A long list must not exhaust any stack. Used by the engine tests and
 * `npm run bench:engine`.
 */
export const FOLD_PACKAGE = `
metadata ( 'ledgerline-fold' : '1.0.0' )
module Main {
  record @serializable Folder = { owner: Party } ;
  record @serializable Fold = { xs: List Int64 } ;
  val sumRec: List Int64 -> Int64 = \\(xs: List Int64) ->
    case xs of Nil -> 0 | Cons h t -> ADD_INT64 h (Main:sumRec t) ;
  template (this : Folder) = {
    precondition True;
    signatories Cons @Party [Main:Folder {owner} this] (Nil @Party);
    observers Nil @Party;
    choice @nonConsuming FoldLeft (self) (arg: Main:Fold) : Int64
      , controllers Cons @Party [Main:Folder {owner} this] (Nil @Party)
      , observers Nil @Party
      to upure @Int64 (FOLDL @Int64 @Int64 (\\(acc: Int64) (x: Int64) -> ADD_INT64 acc x) 0 (Main:Fold {xs} arg));
    choice @nonConsuming FoldRight (self) (arg: Main:Fold) : Int64
      , controllers Cons @Party [Main:Folder {owner} this] (Nil @Party)
      , observers Nil @Party
      to upure @Int64 (FOLDR @Int64 @Int64 (\\(x: Int64) (acc: Int64) -> ADD_INT64 x acc) 0 (Main:Fold {xs} arg));
    choice @nonConsuming Recurse (self) (arg: Main:Fold) : Int64
      , controllers Cons @Party [Main:Folder {owner} this] (Nil @Party)
      , observers Nil @Party
      to upure @Int64 (Main:sumRec (Main:Fold {xs} arg));
  } ;
}`;

export const FOLD_CHOICES = ['FoldLeft', 'FoldRight', 'Recurse'] as const;

/** The fold package as a DAR (no dependencies), and its package id. */
export function foldPackageDar(): Promise<EncodedDar> {
  return encodeDar(parsePackage(FOLD_PACKAGE));
}

/** The choice argument of a fold over 1…n (Int64 as the JSON API writes it: decimal strings), and its sum. */
export function foldArgument(n: number): { argument: { xs: string[] }; sum: string } {
  const xs = Array.from({ length: n }, (_, i) => String(i + 1));
  return { argument: { xs }, sum: String((BigInt(n) * BigInt(n + 1)) / 2n) };
}
