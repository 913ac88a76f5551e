import { ApiError, type Api } from '../api';
import {
  ContractLink,
  DamlValue,
  Facts,
  Link,
  Loading,
  Parties,
  RawJson,
  time,
  useExplorer,
  useFocusHeading,
  useLoad,
} from '../components/common';
import {
  readersFor,
  shortTemplate,
  updateFormat,
  updateOf,
  type Access,
  type LedgerUpdate,
  type Reassignment,
  type TopologyTransaction,
  type Transaction,
  type TransactionEvent,
} from '../ledger';

const SHAPE = 'TRANSACTION_SHAPE_LEDGER_EFFECTS';

/**
 * An update by its id or offset (POST /v2/updates/update-by-id, update-by-offset), as the signed-in user may see it;
 * null when it sees none (UPDATE_NOT_FOUND: unknown, or nothing of it visible).
 */
async function lookUp(
  api: Api,
  access: Access,
  key: { updateId: string } | { offset: number },
  signal: AbortSignal,
): Promise<LedgerUpdate | null> {
  const readers = readersFor(access);
  if (!readers) return null;
  const path = 'updateId' in key ? '/v2/updates/update-by-id' : '/v2/updates/update-by-offset';
  try {
    return updateOf(await api.post(path, { ...key, updateFormat: updateFormat(readers, SHAPE) }, signal));
  } catch (e) {
    if (e instanceof ApiError && e.code === 'UPDATE_NOT_FOUND') return null;
    throw e;
  }
}

export function UpdateView(props: { updateId?: string; offset?: number }) {
  const { session } = useExplorer();
  const key = props.updateId ?? `offset:${props.offset}`;
  const heading = useFocusHeading(key);
  const loaded = useLoad(
    (signal) =>
      lookUp(
        session.api,
        session.access,
        props.updateId !== undefined ? { updateId: props.updateId } : { offset: props.offset! },
        signal,
      ),
    [key],
  );
  const title = props.updateId !== undefined ? `Update ${props.updateId}` : `Update at offset ${props.offset}`;
  return (
    <section aria-labelledby="update-title">
      <h1 id="update-title" ref={heading} tabIndex={-1} class="break">
        {title}
      </h1>
      <Loading what="the update" loaded={loaded}>
        {(u) =>
          u ? (
            <UpdateDetails update={u} />
          ) : (
            <p>No update visible to you {props.offset !== undefined ? `at offset ${props.offset}` : 'with this id'}.</p>
          )
        }
      </Loading>
      {props.offset !== undefined ? (
        <nav class="pager" aria-label="Neighbouring offsets">
          {props.offset > 1 ? (
            <Link to={{ view: 'offset', offset: props.offset - 1 }}>← offset {props.offset - 1}</Link>
          ) : null}
          <Link to={{ view: 'offset', offset: props.offset + 1 }}>offset {props.offset + 1} →</Link>
        </nav>
      ) : null}
    </section>
  );
}

function UpdateDetails({ update }: { update: LedgerUpdate }) {
  const v = update.value;
  const tx = update.kind === 'Transaction' ? (v as Transaction) : null;
  return (
    <>
      <Facts
        rows={[
          ['Kind', update.kind === 'TopologyTransaction' ? 'topology transaction' : update.kind.toLowerCase()],
          ['Update id', <span class="mono break">{update.updateId}</span>],
          ['Offset', <Link to={{ view: 'offset', offset: update.offset }}>{String(update.offset)}</Link>],
          ['Record time', time(update.recordTime)],
          ['Effective at', tx ? time(tx.effectiveAt) : null],
          ['Synchronizer', <Link to={{ view: 'synchronizers' }}>{v.synchronizerId}</Link>],
          ['Command id', (v as Transaction).commandId || null],
          ['Workflow id', (v as Transaction).workflowId || null],
          ['Transaction hash', tx?.transactionHash ? <span class="mono break">{tx.transactionHash}</span> : null],
          [
            'External transaction hash',
            tx?.externalTransactionHash ? <span class="mono break">{tx.externalTransactionHash}</span> : null,
          ],
        ]}
      />
      <h2>Events</h2>
      {update.kind === 'Transaction' ? (
        <ol class="events">
          {(v as Transaction).events.map((e, i) => (
            <li key={i}>
              <TransactionEventView event={e} />
            </li>
          ))}
        </ol>
      ) : update.kind === 'Reassignment' ? (
        <ReassignmentEvents value={v as Reassignment} />
      ) : (
        <TopologyEvents value={v as TopologyTransaction} />
      )}
      <RawJson value={v} />
    </>
  );
}

export function TransactionEventView({ event }: { event: TransactionEvent }) {
  if ('CreatedEvent' in event) {
    const c = event.CreatedEvent;
    return (
      <article class="event">
        <h3>
          Created <span class="template">{shortTemplate(c.templateId)}</span> <span class="muted">node {c.nodeId}</span>
        </h3>
        <Facts
          rows={[
            ['Contract', <ContractLink contractId={c.contractId} />],
            ['Template', <span class="mono break">{c.templateId}</span>],
            ['Package', c.packageName],
            ['Signatories', <Parties parties={c.signatories} />],
            ['Observers', <Parties parties={c.observers} />],
            ['Witnesses', <Parties parties={c.witnessParties} />],
            ['Created at', time(c.createdAt)],
            ['Contract key', c.contractKey ? <DamlValue value={c.contractKey} /> : null],
            ['Contract key hash', c.contractKeyHash ? <span class="mono break">{c.contractKeyHash}</span> : null],
          ]}
        />
        <h4>Create arguments</h4>
        <DamlValue value={c.createArgument} />
      </article>
    );
  }
  if ('ArchivedEvent' in event) {
    const a = event.ArchivedEvent;
    return (
      <article class="event">
        <h3>
          Archived <span class="template">{shortTemplate(a.templateId)}</span>{' '}
          <span class="muted">node {a.nodeId}</span>
        </h3>
        <Facts
          rows={[
            ['Contract', <ContractLink contractId={a.contractId} />],
            ['Witnesses', <Parties parties={a.witnessParties} />],
          ]}
        />
      </article>
    );
  }
  const x = event.ExercisedEvent;
  return (
    <article class="event">
      <h3>
        {x.consuming ? 'Consuming' : 'Non-consuming'} exercise of <span class="template">{x.choice}</span> on{' '}
        {shortTemplate(x.templateId)} <span class="muted">node {x.nodeId}</span>
      </h3>
      <Facts
        rows={[
          ['Contract', <ContractLink contractId={x.contractId} />],
          ['Acting parties', <Parties parties={x.actingParties} />],
          ['Witnesses', <Parties parties={x.witnessParties} />],
          ['Choice argument', <DamlValue value={x.choiceArgument} />],
          [
            'Result',
            x.exerciseResult === null || x.exerciseResult === undefined ? null : <DamlValue value={x.exerciseResult} />,
          ],
        ]}
      />
    </article>
  );
}

function ReassignmentEvents({ value }: { value: Reassignment }) {
  return (
    <ol class="events">
      {value.events.map((e, i) => {
        if ('JsAssignmentEvent' in e) {
          const a = e.JsAssignmentEvent;
          return (
            <li key={i}>
              <article class="event">
                <h3>Assigned {shortTemplate(a.createdEvent.templateId)}</h3>
                <Facts
                  rows={[
                    ['Contract', <ContractLink contractId={a.createdEvent.contractId} />],
                    ['From', a.source],
                    ['To', a.target],
                    ['Stakeholders', <Parties parties={a.createdEvent.witnessParties} />],
                  ]}
                />
                <h4>Create arguments</h4>
                <DamlValue value={a.createdEvent.createArgument} />
              </article>
            </li>
          );
        }
        const u = e.JsUnassignedEvent.value;
        return (
          <li key={i}>
            <article class="event">
              <h3>Unassigned {shortTemplate(String(u.templateId ?? ''))}</h3>
              <Facts
                rows={[
                  ['Contract', <ContractLink contractId={u.contractId} />],
                  ['From', u.source],
                  ['To', u.target],
                  ['Stakeholders', <Parties parties={u.witnessParties} />],
                ]}
              />
            </article>
          </li>
        );
      })}
    </ol>
  );
}

function TopologyEvents({ value }: { value: TopologyTransaction }) {
  return (
    <ol class="events">
      {value.events.flatMap((e, i) =>
        Object.entries(e.event).map(([name, body]) => (
          <li key={`${i}-${name}`}>
            <article class="event">
              <h3>{name.replace(/([a-z])([A-Z])/g, '$1 $2')}</h3>
              <Facts
                rows={[
                  ['Party', <Parties parties={[body.value.partyId]} />],
                  ['Participant', <span class="mono break">{body.value.participantId}</span>],
                  ['Permission', body.value.participantPermission ? String(body.value.participantPermission) : null],
                ]}
              />
            </article>
          </li>
        )),
      )}
    </ol>
  );
}
