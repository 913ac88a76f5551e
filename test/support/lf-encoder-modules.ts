/**
 * Daml-LF text modules restating those Canton builds its encoder test DARs from (`community/daml-lf/encoder/src/test/lf/*.lf`:
 * test-2.1.dar, test-2.2.dar). The module contents are the facts; the layout is ours. Used by the conformance test that
 * compares our parser + encoder with Canton's archives, and by the parser's unit tests.
 */

/** Canton's one-field "Box" template modules (Bool, Timestamp, Unit, TextMap…): a record with `x` and a party. */
const box = (mod: string, type: string, extra = '') => `
module ${mod} {
  record @serializable Box = { x: ${type}, party: Party };
  template (this : Box) = {
    precondition True;
    signatories (PartyMod:one (${mod}:Box {party} this));
    observers (Nil @Party);
  };${extra}
}`;

const PAIR = 'RecordMod:Pair Int64 (Numeric 10)';
const EITHER = 'VariantMod:Either Int64 (Numeric 10)';
const MAP = `GenMap (${PAIR}) (${EITHER})`;

/** Modules present in both test-2.1.dar and test-2.2.dar. */
export const LF_ENCODER_MODULES: Record<string, string> = {
  BoolMod: box('BoolMod', 'Bool'),
  TimestampMod: box('TimestampMod', 'Timestamp'),
  UnitMod: box('UnitMod', 'Unit'),
  TextMapMod: box('TextMapMod', 'TextMap Int64'),
  Int64Mod: box(
    'Int64Mod',
    'Int64',
    `
  val equal: Int64 -> Int64 -> Bool = EQUAL @Int64;`,
  ),
  TextMod: box(
    'TextMod',
    'Text',
    `
  val build: Party -> TextMod:Box = \\(p : Party) -> TextMod:Box { x = "some text", party = p };`,
  ),
  GenMapMod: box(
    'GenMapMod',
    MAP,
    `
  val insert: (${PAIR}) -> (${EITHER}) -> ${MAP} -> ${MAP} = GENMAP_INSERT @(${PAIR}) @(${EITHER});
  val createContract: Party -> ${MAP} -> Update (ContractId GenMapMod:Box) =
    \\ (p: Party) (x: ${MAP}) -> create @GenMapMod:Box (GenMapMod:Box { x = x, party = p });
  val map0: ${MAP} = GENMAP_EMPTY @(${PAIR}) @(${EITHER});
  val map1: ${MAP} = GenMapMod:insert RecordMod:pair1 VariantMod:either1 GenMapMod:map0;
  val map2: ${MAP} = GenMapMod:insert RecordMod:pair2 VariantMod:either2 GenMapMod:map1;
  val map3: ${MAP} = GenMapMod:insert RecordMod:pair3 VariantMod:either3 GenMapMod:map2;
  val createContracts: Party -> Update Unit = \\ (p: Party) ->
    ubind
      c0 : ContractId GenMapMod:Box <- GenMapMod:createContract p GenMapMod:map0 ;
      c1 : ContractId GenMapMod:Box <- GenMapMod:createContract p GenMapMod:map1 ;
      c2 : ContractId GenMapMod:Box <- GenMapMod:createContract p GenMapMod:map2 ;
      c3 : ContractId GenMapMod:Box <- GenMapMod:createContract p GenMapMod:map3
    in upure @Unit ();
  val equal: forall (x:*). x -> x -> Bool = EQUAL;`,
  ),
  PartyMod: `
module PartyMod {
  record @serializable Box = { x: Party, party: Party };
  template (this : Box) = {
    precondition True;
    signatories (PartyMod:one (PartyMod:Box {party} this));
    observers (Nil @Party);
  };
  val one: Party -> List Party = \\(x: Party) -> Cons @Party [x] (Nil @Party);
}`,
  RecordMod: `
module RecordMod {
  record @serializable MyUnit = {};
  record @serializable Pair (a:*) (b: *) = { fst: a, snd: b };
  record @serializable Box = { x: RecordMod:Pair Int64 (Numeric 10), party: Party };
  template (this : Box) = {
    precondition True;
    signatories (PartyMod:one (RecordMod:Box {party} this));
    observers (Nil @Party);
  };
  val createContract: Party -> RecordMod:Pair Int64 (Numeric 10) -> Update (ContractId RecordMod:Box) =
    \\ (bob: Party) (x: RecordMod:Pair Int64 (Numeric 10)) ->
      create @RecordMod:Box (RecordMod:Box { x = x, party = bob });
  val pair1: RecordMod:Pair Int64 (Numeric 10) = RecordMod:Pair @Int64 @(Numeric 10) { fst = 1, snd = 1.0000000000 };
  val pair2: RecordMod:Pair Int64 (Numeric 10) = RecordMod:Pair @Int64 @(Numeric 10) { fst = -2, snd = -2.2222222222 };
  val pair3: RecordMod:Pair Int64 (Numeric 10) =
    RecordMod:Pair @Int64 @(Numeric 10) { fst = -3, snd = -3333333333333333333333333333.0000000000 };
  val createContracts: Party -> Update Unit = \\(p: Party) ->
    ubind
      c1 : ContractId RecordMod:Box <- RecordMod:createContract p RecordMod:pair1 ;
      c2 : ContractId RecordMod:Box <- RecordMod:createContract p RecordMod:pair2 ;
      c3 : ContractId RecordMod:Box <- RecordMod:createContract p RecordMod:pair3
    in upure @Unit ();
}`,
  VariantMod: `
module VariantMod {
  variant @serializable Either (a:*) (b: *) = Left: a | Right: b;
  record @serializable Box = { x: VariantMod:Either Int64 (Numeric 10), party: Party };
  template (this : Box) = {
    precondition True;
    signatories (PartyMod:one (VariantMod:Box {party} this));
    observers (Nil @Party);
  };
  val createContract: Party -> VariantMod:Either Int64 (Numeric 10) -> Update (ContractId VariantMod:Box) =
    \\ (bob: Party) (x: VariantMod:Either Int64 (Numeric 10)) ->
      create @VariantMod:Box (VariantMod:Box { x = x, party = bob });
  val either1: VariantMod:Either Int64 (Numeric 10) = VariantMod:Either:Left @Int64 @(Numeric 10) 0;
  val either2: VariantMod:Either Int64 (Numeric 10) = VariantMod:Either:Right @Int64 @(Numeric 10) 1.1111111111;
  val either3: VariantMod:Either Int64 (Numeric 10) = VariantMod:Either:Right @Int64 @(Numeric 10) -2.2222222222;
  val createContracts: Party -> Update Unit = \\(p: Party) ->
    ubind
      c1 : ContractId VariantMod:Box <- VariantMod:createContract p VariantMod:either1 ;
      c2 : ContractId VariantMod:Box <- VariantMod:createContract p VariantMod:either2 ;
      c3 : ContractId VariantMod:Box <- VariantMod:createContract p VariantMod:either3
    in upure @Unit ();
}`,
  EnumMod: `
module EnumMod {
  enum @serializable Color = Red | Green | Blue;
  record @serializable Box = { x: EnumMod:Color, party: Party };
  template (this : Box) = {
    precondition True;
    signatories (PartyMod:one (EnumMod:Box {party} this));
    observers (Nil @Party);
  };
  val createColoredContract: Party -> EnumMod:Color -> Update (ContractId EnumMod:Box) =
    \\ (p: Party) (color: EnumMod:Color) -> create @EnumMod:Box (EnumMod:Box { x = color, party = p });
  enum Nothing = ;
  variant @serializable OptionalColor = NoColor: Unit | SomeColor: EnumMod:Color;
  variant @serializable ColoredTree = Leaf: Unit | Node : EnumMod:ColoredTree.Node;
  record @serializable ColoredTree.Node = { color: EnumMod:Color, left: EnumMod:ColoredTree, right: EnumMod:ColoredTree };
  record @serializable NestedEnumTemplate = { optionalColor: EnumMod:OptionalColor, coloredTree: EnumMod:ColoredTree, party: Party };
  template (this : NestedEnumTemplate) = {
    precondition True;
    signatories (PartyMod:one (EnumMod:NestedEnumTemplate {party} this));
    observers (Nil @Party);
  };
  val createContracts: Party -> Update Unit = \\(p: Party) ->
    ubind
      c1 : ContractId EnumMod:Box <- EnumMod:createColoredContract p EnumMod:Color:Red ;
      c2 : ContractId EnumMod:Box <- EnumMod:createColoredContract p EnumMod:Color:Green ;
      c3 : ContractId EnumMod:Box <- EnumMod:createColoredContract p EnumMod:Color:Blue
    in upure @Unit ();
}`,
  TemplateMod: `
module TemplateMod {
  record @serializable Person = { person: Party, name: Text };
  template (this : Person) = {
    precondition True;
    signatories Cons @Party [TemplateMod:Person {person} this] (Nil @Party);
    observers (Nil @Party);
    choice Sleep (self) (u: Unit) : ContractId TemplateMod:Person
      , controllers Cons @Party [TemplateMod:Person {person} this] (Nil @Party)
      , observers Cons @Party [TemplateMod:Person {person} this] (Nil @Party)
      to upure @(ContractId TemplateMod:Person) self;
    choice @nonConsuming Nap (self) (i : Int64) : Int64
      , controllers Cons @Party [TemplateMod:Person {person} this] (Nil @Party)
      , observers Cons @Party [TemplateMod:Person {person} this] (Nil @Party)
      to upure @Int64 i;
  };
}`,
  InterfaceMod0: `
module InterfaceMod0 {
  record @serializable Parcel = { party: Party };
  template (this: Parcel) = {
    precondition True;
    signatories Cons @Party [InterfaceMod0:Parcel {party} this] (Nil @Party);
    observers Cons @Party [InterfaceMod0:Parcel {party} this] (Nil @Party);
  };
}`,
  InterfaceMod: `
module InterfaceMod {
  interface (this: Root) = { viewtype RecordMod:MyUnit; };
  interface (this: Boxy) = {
    viewtype RecordMod:MyUnit;
    method getParty: Party;
    choice @nonConsuming ReturnInt (self) (i: Int64): Int64
      , controllers Cons @Party [call_method @InterfaceMod:Boxy getParty this] (Nil @Party)
      , observers Nil @Party
      to upure @Int64 i;
  };
  record @serializable Box = { party: Party, name: Text };
  template (this: Box) = {
    precondition True;
    signatories Cons @Party [InterfaceMod:Box {party} this] (Nil @Party);
    observers Cons @Party [InterfaceMod:Box {party} this] (Nil @Party);
    implements InterfaceMod:Root { view = RecordMod:MyUnit {}; };
    implements InterfaceMod:Boxy { view = RecordMod:MyUnit {}; method getParty = InterfaceMod:Box {party} this; };
  };
  val boxToBoxy: InterfaceMod:Box -> InterfaceMod:Boxy =
    \\(box: InterfaceMod:Box) -> to_interface @InterfaceMod:Boxy @InterfaceMod:Box box;
  val boxyToBox: InterfaceMod:Boxy -> Option InterfaceMod:Box =
    \\(boxy: InterfaceMod:Boxy) -> from_interface @InterfaceMod:Boxy @InterfaceMod:Box boxy;
  val boxySignatory: InterfaceMod:Boxy -> List Party = \\(boxy: InterfaceMod:Boxy) -> signatory_interface @InterfaceMod:Boxy boxy;
  val boxyObserver: InterfaceMod:Boxy -> List Party = \\(boxy: InterfaceMod:Boxy) -> observer_interface @InterfaceMod:Boxy boxy;
  val exercise: ContractId InterfaceMod:Boxy -> Update Int64 =
    \\(cid: ContractId InterfaceMod:Boxy) -> exercise_interface @InterfaceMod:Boxy ReturnInt cid 0;
}`,
  ExceptionMod: `
module ExceptionMod {
  record @serializable Exception = { message: Text };
  exception Exception = { message \\(e: ExceptionMod:Exception) -> ExceptionMod:Exception {message} e };
  val anException: ExceptionMod:Exception = ExceptionMod:Exception {message = "oops"};
  val throwAndCatch : Update Int64 =
    try @Int64 (upure @Int64 (throw @Int64 @ExceptionMod:Exception ExceptionMod:anException))
    catch e -> Some @(Update Int64) (upure @Int64 77);
  val anAnyException: AnyException = to_any_exception @ExceptionMod:Exception ExceptionMod:anException;
  val anUnwrappedAnyException: Option ExceptionMod:Exception =
    from_any_exception @ExceptionMod:Exception ExceptionMod:anAnyException;
  val aMessage: Text = ANY_EXCEPTION_MESSAGE ExceptionMod:anAnyException;
}`,
  AnyMod: `
module AnyMod {
  record T = {};
  val int2Any: AnyMod:T -> Any = \\ (x: AnyMod:T) -> to_any @AnyMod:T x;
  val any2Int: Any -> (Option AnyMod:T) = \\ (x: Any) -> from_any @AnyMod:T x;
  val intRep: TypeRep = type_rep @AnyMod:T;
}`,
  SynonymMod: `
module SynonymMod {
  synonym Functor (f: * -> *) = <fmap: forall a b . (a -> b) -> f a -> f b> ;
  val optionFunctorDict : ||SynonymMod:Functor Option|| =
    <fmap = ERROR @(forall a b. (a -> b) -> Option a -> Option b) "not implemented" > ;
}`,
  NumericMod: `
module NumericMod {
  record @serializable Box = { x0: Numeric 0, x10: Numeric 10, x17: Numeric 17, x37: Numeric 37, party: Party };
  template (this : Box) = {
    precondition True;
    signatories (PartyMod:one (NumericMod:Box {party} this));
    observers (Nil @Party);
  };
  val build0: Party -> NumericMod:Box = \\(p : Party) -> NumericMod:Box {
    x0 = 0., x10 = 0.0000000000, x17 = 0.00000000000000000, x37 = 0.0000000000000000000000000000000000000, party = p };
  val buildMax: Party -> NumericMod:Box = \\(p : Party) -> NumericMod:Box {
    x0 = 99999999999999999999999999999999999999., x10 = 9999999999999999999999999999.9999999999,
    x17 = 999999999999999999999.99999999999999999, x37 = 9.9999999999999999999999999999999999999, party = p };
  val buildMin: Party -> NumericMod:Box = \\(p : Party) -> NumericMod:Box {
    x0 = -99999999999999999999999999999999999999., x10 = -9999999999999999999999999999.9999999999,
    x17 = -999999999999999999999.99999999999999999, x37 = -9.9999999999999999999999999999999999999, party = p };
}`,
  ListMod: `
module ListMod {
  record @serializable Box = { x: List Int64, party: Party };
  template (this : Box) = {
    precondition True;
    signatories (PartyMod:one (ListMod:Box {party} this));
    observers (Nil @Party);
  };
  val empty: forall (a: *). List a = /\\ (a: *). Nil @a;
  val build1: forall (a: *). a -> List a = /\\ (a: *). \\(x: a) -> Cons @a [x] (Nil @a);
}`,
  LedgerTimeMod: `
module LedgerTimeMod {
  record @serializable Action = { party: Party, action: Text };
  template (this : Action) = {
    precondition True;
    signatories (PartyMod:one (LedgerTimeMod:Action {party} this));
    observers (Nil @Party);
    choice CheckStatus (self) (dueBy: Timestamp) : Bool
      , controllers (PartyMod:one (LedgerTimeMod:Action {party} this))
      , observers (PartyMod:one (LedgerTimeMod:Action {party} this))
      to (ledger_time_lt dueBy);
  };
}`,
  OptionMod: `
module OptionMod {
  record @serializable Box = { x: Option Int64, party: Party };
  template (this : Box) = {
    precondition True;
    signatories (PartyMod:one (OptionMod:Box {party} this));
    observers (Nil @Party);
  };
}`,
  DateMod: `
module DateMod {
  record @serializable Box = { x: Date, party: Party };
  template (this : Box) = {
    precondition True;
    signatories (PartyMod:one (DateMod:Box {party} this));
    observers (Nil @Party);
  };
}`,
};

/** Modules only in test-2.1.dar. */
export const LF_ENCODER_MODULES_2_1: Record<string, string> = {
  InterfaceUnsafeFromMod: `
module InterfaceUnsafeFromMod {
  interface (this: Root) = { viewtype RecordMod:MyUnit; };
  interface (this: Boxy) = {
    viewtype RecordMod:MyUnit;
    requires InterfaceUnsafeFromMod:Root;
    method getParty: Party;
    choice @nonConsuming ReturnInt (self) (i: Int64): Int64
      , controllers Cons @Party [call_method @InterfaceUnsafeFromMod:Boxy getParty this] (Nil @Party)
      , observers Nil @Party
      to upure @Int64 i;
  };
  record @serializable Box = { party: Party, name: Text };
  template (this: Box) = {
    precondition True;
    signatories Cons @Party [InterfaceUnsafeFromMod:Box {party} this] (Nil @Party);
    observers Cons @Party [InterfaceUnsafeFromMod:Box {party} this] (Nil @Party);
  };
  val unsafeBoxyToBox: ContractId InterfaceMod:Boxy -> InterfaceMod:Boxy -> InterfaceMod:Box =
    \\(cid: ContractId InterfaceMod:Boxy) (boxy: InterfaceMod:Boxy) ->
      unsafe_from_interface @InterfaceMod:Boxy @InterfaceMod:Box cid boxy;
}`,
};

/** Some values of Canton's BuiltinMod (builtins as values, their types with nat foralls), for both versions. */
export const LF_ENCODER_BUILTIN_VALUES = `
module BuiltinMod {
  val addNumeric: forall (a: nat). Numeric a -> Numeric a -> Numeric a = ADD_NUMERIC;
  val mulNumeric: forall (a: nat) (b: nat) (g: nat). Numeric g -> Numeric a -> Numeric b -> Numeric g = MUL_NUMERIC;
  val castNumeric: forall (a: nat) (b: nat). Numeric b -> Numeric a -> Numeric b = CAST_NUMERIC;
  val addInt64: Int64 -> Int64 -> Int64 = ADD_INT64;
  val foldl: forall (a: *) (b: *). (b -> a -> b) -> b -> List a -> b = FOLDL;
  val textmapInsert: forall (a: *). Text -> a -> TextMap a -> TextMap a = TEXTMAP_INSERT;
  val genmapLookup: forall (a: *) (b: *). a -> GenMap a b -> Option b = GENMAP_LOOKUP;
  val equal: forall (a: *). a -> a -> Bool = EQUAL;
  val error: forall (a: *). Text -> a = ERROR;
  val trace: forall (a: *). Text -> a -> a = TRACE;
}`;
