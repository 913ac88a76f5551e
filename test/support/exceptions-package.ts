/**
 * A Daml-LF text package (module `Ex`) for the exception and disclosure tests. `Ex:Note` has one nonconsuming choice
 * per scenario (argument `Ex:Empty`, controller the owner): try/catch shapes that leave nested rollbacks, an unhandled
 * exception, FAIL_WITH_STATUS, an exception whose message throws, an exception in a choice's controllers. `Ex:Offer` (signatory `owner`) has choices controlled
 * by the party in their argument (`Ex:Taker`), who need not be a stakeholder: `Take` (consuming, creates a Note for
 * the taker) and `Look` (nonconsuming, returns the note text).
 */

const create = (n: number) =>
  `_ : ContractId Ex:Note <- create @Ex:Note (Ex:Note { owner = Ex:Note {owner} this, n = ${n} })`;
const boom = (msg: string) => `throw @(Update Unit) @Ex:Boom (Ex:Boom { msg = "${msg}" })`;
/** `try body catch e -> Some (upure ())` (`handled`) or `… -> None` (rethrown). */
const tryCatch = (body: string, handled = true) =>
  `try @Unit (ubind ${body} in upure @Unit ()) catch e -> ${handled ? 'Some @(Update Unit) (upure @Unit ())' : 'None @(Update Unit)'}`;
const step = (expr: string) => `_ : Unit <- ${expr}`;

/** Choice bodies, by name: each an update block. */
export const BODIES: Record<string, string> = {
  // try { c1; try { c2; throw } catch; c3; throw } catch; c4
  Nested: [
    step(
      tryCatch(
        [create(1), step(tryCatch([create(2), step(boom('inner'))].join(' ; '))), create(3), step(boom('outer'))].join(
          ' ; ',
        ),
      ),
    ),
    create(4),
  ].join(' ; '),
  // try { try { c1; throw } catch; c2; throw } catch
  Leading: step(
    tryCatch([step(tryCatch([create(1), step(boom('a'))].join(' ; '))), create(2), step(boom('b'))].join(' ; ')),
  ),
  // try { c1; try { c2; throw } catch → None (rethrown) } catch
  Trailing: step(tryCatch([create(1), step(tryCatch([create(2), step(boom('a'))].join(' ; '), false))].join(' ; '))),
  // try { try { c1; throw } catch → None } catch: a rollback of a single rollback
  Single: step(tryCatch(step(tryCatch([create(1), step(boom('a'))].join(' ; '), false)))),
  // try { throw } catch; c1: an empty rollback leaves no node (its id is still taken while interpreting)
  Empty: [step(tryCatch(step(boom('a')))), create(1)].join(' ; '),
  Unhandled: [create(1), step(boom('nobody catches this'))].join(' ; '),
  Status: `${create(1)} ; ${step(`FAIL_WITH_STATUS @(Update Unit) "LEDGERLINE_TEST_FAILURE" INVALID_INDEPENDENT_OF_SYSTEM_STATE "the status message" (TEXTMAP_INSERT @Text "k1" "v1" (TEXTMAP_INSERT @Text "k2" "v2" (TEXTMAP_EMPTY @Text)))`)}`,
  // FAIL_WITH_STATUS is not an exception: try does not catch it
  StatusInTry: step(
    tryCatch(
      step(
        `FAIL_WITH_STATUS @(Update Unit) "CAUGHT_NOT" INVALID_GIVEN_CURRENT_SYSTEM_STATE_OTHER "x" (TEXTMAP_EMPTY @Text)`,
      ),
    ),
  ),
  // try { c1; throw } catch; exercise self Unhandled (nested): the trace names both exercises
  Deep: [
    step(tryCatch([create(1), step(boom('a'))].join(' ; '))),
    step('exercise @Ex:Note Unhandled self Ex:Empty {}'),
  ].join(' ; '),
  BadMessage: step(`throw @(Update Unit) @Ex:BadMessage (Ex:BadMessage {})`),
  // try { exercise self BadControllers } catch: the controllers' exception is not catchable
  CatchControllers: step(tryCatch(step('exercise @Ex:Note BadControllers self Ex:Empty {}'))),
};

const choices = Object.entries(BODIES)
  .map(
    ([name, body]) => `
    choice @nonConsuming ${name} (self) (arg: Ex:Empty) : Unit
      , controllers Cons @Party [Ex:Note {owner} this] (Nil @Party)
      to ubind ${body} in upure @Unit ();`,
  )
  .join('');

export const EXCEPTIONS_PACKAGE_SRC = `
metadata ( 'exceptions-test' : '1.0.0' )
module Ex {
  record @serializable Empty = {} ;
  record @serializable Boom = { msg: Text } ;
  exception Boom = { message \\(e: Ex:Boom) -> Ex:Boom {msg} e } ;
  record @serializable BadMessage = {} ;
  exception BadMessage = { message \\(e: Ex:BadMessage) -> throw @Text @Ex:Boom (Ex:Boom { msg = "in the message" }) } ;
  record @serializable Note = { owner: Party, n: Int64 } ;
  template (this : Note) = {
    precondition True;
    signatories Cons @Party [Ex:Note {owner} this] (Nil @Party);
    observers Nil @Party;${choices}
    choice @nonConsuming BadControllers (self) (arg: Ex:Empty) : Unit
      , controllers throw @(List Party) @Ex:Boom (Ex:Boom { msg = "in the controllers" })
      to upure @Unit ();
  } ;
  record @serializable Offer = { owner: Party, note: Text } ;
  record @serializable Taker = { taker: Party } ;
  template (this : Offer) = {
    precondition True;
    signatories Cons @Party [Ex:Offer {owner} this] (Nil @Party);
    observers Nil @Party;
    choice Take (self) (arg: Ex:Taker) : ContractId Ex:Note
      , controllers Cons @Party [Ex:Taker {taker} arg] (Nil @Party)
      to create @Ex:Note (Ex:Note { owner = Ex:Taker {taker} arg, n = 1 });
    choice @nonConsuming Look (self) (arg: Ex:Taker) : Text
      , controllers Cons @Party [Ex:Taker {taker} arg] (Nil @Party)
      to upure @Text (Ex:Offer {note} this);
  } ;
}
`;
