/**
 * Interface filters and views from stored packages (Canton's EventProjectionProperties and LfValueTranslation): an
 * interface filter by package name selects the templates whose package implements the interface, views are evaluated by
 * the engine from the create argument, a failing view is a viewStatus, and the catalog answers for other templates.
 */
import { describe, expect, it, vi } from 'vitest';
import { ErrorInfo } from '@canton-network/core-ledger-proto';
import { Engine } from '@ledgerline/daml-lf';
import {
  catalogInterfaces,
  compileEventFormat,
  firstKnowing,
  packageInterfaces,
  renderVisibleCreated,
  type EventFormat,
  type StoredCreatedEvent,
} from '@ledgerline/domain';
import { ASSET_FILTER, BROKEN_LABEL, TOKEN_NAME, interfacePackages } from '../../support/interface-packages';

const issuer = 'issuer::1220aa';
const owner = 'owner::1220bb';

const v1 = interfacePackages();
const assetId = `${v1.api.id}:Api:Asset`;

function engineWith(...pkgs: Array<ReturnType<typeof interfacePackages>>): Engine {
  const e = new Engine();
  for (const p of pkgs) {
    e.addPackage(p.api);
    e.addPackage(p.token);
  }
  return e;
}

let n = 0;
function contract(packageId: string, entity: string, createArgument: Record<string, unknown>): StoredCreatedEvent {
  return {
    nodeId: 0,
    contractId: `00${(++n).toString(16).padStart(64, '0')}`,
    templateId: `${packageId}:Token:${entity}`,
    packageName: TOKEN_NAME,
    representativePackageId: packageId,
    createArgument,
    createdEventBlob: '',
    signatories: [issuer],
    observers: [owner],
    createdAt: '2026-01-01T00:00:00Z',
    contractKey: null,
    contractKeyHash: '',
    acsDelta: true,
  };
}

const coin = (packageId: string, label: string) =>
  contract(packageId, 'Coin', { issuer, owner, amount: '12.5000000000', label });

const interfaceFilter = (interfaceId: string, includeInterfaceView = true): EventFormat => ({
  filtersByParty: {
    [owner]: {
      cumulative: [{ identifierFilter: { InterfaceFilter: { value: { interfaceId, includeInterfaceView } } } }],
    },
  },
});

describe('interfaces of stored packages', () => {
  it('an interface filter by package name selects the implementing template and renders its view', () => {
    const dir = packageInterfaces(engineWith(v1));
    const ef = compileEventFormat(interfaceFilter(ASSET_FILTER), dir);
    const ev = renderVisibleCreated(coin(v1.token.id, 'gold'), 7, ef)!;
    expect(ev.interfaceViews).toEqual([
      {
        interfaceId: assetId,
        viewStatus: { code: 0, message: '', details: [] },
        viewValue: { holder: owner, amount: '12.5000000000', label: 'gold' },
        implementationPackageId: v1.token.id,
      },
    ]);
    // The template that implements nothing, and another interface name, match nothing.
    expect(renderVisibleCreated(contract(v1.token.id, 'Plain', { issuer, owner }), 7, ef)).toBeNull();
    expect(
      renderVisibleCreated(coin(v1.token.id, 'gold'), 7, compileEventFormat(interfaceFilter('#iv-api:Api:Other'), dir)),
    ).toBeNull();
    expect(
      renderVisibleCreated(
        coin(v1.token.id, 'gold'),
        7,
        compileEventFormat(interfaceFilter('#other-api:Api:Asset'), dir),
      ),
    ).toBeNull();
  });

  it('without includeInterfaceView the template is selected with no views', () => {
    const ef = compileEventFormat(interfaceFilter(ASSET_FILTER, false), packageInterfaces(engineWith(v1)));
    expect(renderVisibleCreated(coin(v1.token.id, 'gold'), 7, ef)?.interfaceViews).toEqual([]);
  });

  it('a view that fails is a viewStatus as Canton serializes the error, with no value', () => {
    const ef = compileEventFormat(interfaceFilter(ASSET_FILTER), packageInterfaces(engineWith(v1)));
    const [view] = renderVisibleCreated(coin(v1.token.id, BROKEN_LABEL), 7, ef)!.interfaceViews;
    expect(view).toMatchObject({ interfaceId: assetId, viewValue: null, implementationPackageId: v1.token.id });
    expect(view.viewStatus.code).toBe(9);
    expect(view.viewStatus.message).toBe(
      'INTERPRETATION_USER_ERROR(9,0): Interpretation error: Error: User abort: no view of a broken coin',
    );
    expect(view.viewStatus.details[0].typeUrl).toBe('type.googleapis.com/google.rpc.ErrorInfo');
    const info = ErrorInfo.fromBinary(Buffer.from(view.viewStatus.details[0].value, 'base64'));
    expect(info.reason).toBe('INTERPRETATION_USER_ERROR');
    expect(info.metadata.category).toBe('9');
  });

  it('views of a template version without the instance come from the highest version that has it', () => {
    const old = interfacePackages({ version: '0.9.0', withInstance: false });
    const v2 = interfacePackages({ version: '2.0.0' });
    expect(new Set([old.api.id, v1.api.id, v2.api.id]).size).toBe(1);
    const dir = packageInterfaces(engineWith(old, v1, v2));
    const ef = compileEventFormat(interfaceFilter(ASSET_FILTER), dir);
    // The old template matches by name: a version of its package implements the interface.
    const [view] = renderVisibleCreated(coin(old.token.id, 'silver'), 7, ef)!.interfaceViews;
    expect(view).toMatchObject({
      viewStatus: { code: 0 },
      viewValue: { holder: owner, label: 'silver' },
      implementationPackageId: v2.token.id,
    });
  });

  it('a computed view is evaluated once per contract; a failure is evaluated again', () => {
    const engine = engineWith(v1);
    const evaluate = vi.spyOn(engine, 'interfaceView');
    const ef = compileEventFormat(interfaceFilter(ASSET_FILTER), packageInterfaces(engine));
    const gold = coin(v1.token.id, 'gold');
    const broken = coin(v1.token.id, BROKEN_LABEL);
    for (let i = 0; i < 3; i++) {
      expect(renderVisibleCreated(gold, 7, ef)?.interfaceViews[0].viewValue).toMatchObject({ label: 'gold' });
      expect(renderVisibleCreated(broken, 7, ef)?.interfaceViews[0].viewStatus.code).toBe(9);
    }
    expect(
      evaluate.mock.calls.filter(([, , arg]) => (arg as { json: { label: string } }).json.label === 'gold'),
    ).toHaveLength(1);
    expect(
      evaluate.mock.calls.filter(([, , arg]) => (arg as { json: { label: string } }).json.label === BROKEN_LABEL),
    ).toHaveLength(3);
  });

  it('packages decoded later are found: the directory follows the engine', () => {
    const engine = new Engine();
    const dir = packageInterfaces(engine);
    expect(dir.implementationsOf(`${TOKEN_NAME}:Token:Coin`)).toBeUndefined();
    engine.addPackage(v1.token);
    // The interface's package is not decoded yet: its name is unknown, so nothing matches by name.
    expect(dir.implementationsOf(`${TOKEN_NAME}:Token:Coin`)).toEqual([]);
    engine.addPackage(v1.api);
    expect(dir.implementationsOf(`${TOKEN_NAME}:Token:Coin`)?.map((i) => [i.interfaceKey, i.interfaceId])).toEqual([
      ['iv-api:Api:Asset', assetId],
    ]);
  });

  it('a stored package answers for its templates; the catalog for the others', () => {
    const catalog = catalogInterfaces({
      templates: {
        '#memo:Main:Memo': { interfaces: { '#memo-api:Api:Note': { view: { text: 'body' } } } },
        [`#${TOKEN_NAME}:Token:Coin`]: { interfaces: { '#memo-api:Api:Note': { view: { text: 'label' } } } },
        [`#${TOKEN_NAME}:Token:Plain`]: { interfaces: { '#memo-api:Api:Note': { view: { text: 'issuer' } } } },
      },
    });
    const dir = firstKnowing(packageInterfaces(engineWith(v1)), catalog);
    expect(dir.implementationsOf('memo:Main:Memo')?.map((i) => i.interfaceKey)).toEqual(['memo-api:Api:Note']);
    expect(dir.implementationsOf(`${TOKEN_NAME}:Token:Coin`)?.map((i) => i.interfaceKey)).toEqual(['iv-api:Api:Asset']);
    // The stored package's template implements nothing: the catalog's declaration for that name does not count.
    expect(dir.implementationsOf(`${TOKEN_NAME}:Token:Plain`)).toEqual([]);
    expect(dir.implementationsOf('unknown:Main:T')).toBeUndefined();
  });
});
