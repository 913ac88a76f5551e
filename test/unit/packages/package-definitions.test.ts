import { describe, expect, it } from 'vitest';
import { decodeArchivePayload, packageDefinitions, packageSummary, type Package } from '@ledgerline/daml-lf';
import { encodeArchive, parsePackage } from '@ledgerline/daml-lf/testing';
import { interfacePackages } from '../../support/interface-packages';

/**
 * `packageDefinitions`: a package's templates, choices, interfaces and data types as a person reads them, from packages
 * written in LF text and encoded as archives (references within a package then carry its real id).
 */
const one = (e: string) => `Cons @Party [${e}] (Nil @Party)`;

const SHOP = `
metadata ( 'shop' : '2.0.0' )
module Shop {
  enum @serializable Size = Small | Large;
  variant @serializable Payment = Cash: Numeric 10 | Card: Text;
  record @serializable Pair (a: *) (b: *) = { first: a, second: b };
  record @serializable Order = {
    seller: Party, buyer: Party, item: Text, size: Shop:Size, quantity: Int64, price: Numeric 10,
    note: Option Text, tags: List Text, extras: TextMap Int64, due: Date, placed: Timestamp,
    pair: Shop:Pair Text Int64, payment: Shop:Payment
  };
  record @serializable Accept = { by: Party, at: Option Timestamp };
  record @serializable Peek = {};
  val sigs : Shop:Order -> List Party = \\(o: Shop:Order) -> ${one('Shop:Order {seller} o')};
  template (this: Order) = {
    precondition True;
    signatories Shop:sigs this;
    observers ${one('Shop:Order {buyer} this')};
    choice Accept (self) (arg: Shop:Accept) : ContractId Shop:Order
      , controllers ${one('Shop:Order {buyer} this')}
      to upure @(ContractId Shop:Order) self;
    choice @nonConsuming Peek (self) (arg: Shop:Peek) : Shop:Pair Text Int64
      , controllers ${one('Shop:Order {seller} this')}
      to upure @(Shop:Pair Text Int64) (Shop:Pair @Text @Int64 { first = "a", second = 1 });
    key @Party (Shop:Order {seller} this) (\\(k: Party) -> ${one('k')});
  };
}`;

function shop(): Package {
  const a = encodeArchive(parsePackage(SHOP, { minor: '1' }));
  return decodeArchivePayload(a.payload, a.packageId);
}

describe('packageDefinitions', () => {
  it('renders a template: fields, signatory and observer fields, key, choices and a typed example', () => {
    const pkg = shop();
    const d = packageDefinitions(pkg, () => undefined);
    expect(d).toMatchObject({ packageId: pkg.id, name: 'shop', version: '2.0.0', languageVersion: '2.1' });
    const [mod] = d.modules;
    expect(mod.name).toBe('Shop');
    const [order] = mod.templates;
    expect(order.templateId).toBe(`${pkg.id}:Shop:Order`);
    expect(order.fields).toEqual([
      { name: 'seller', type: 'Party' },
      { name: 'buyer', type: 'Party' },
      { name: 'item', type: 'Text' },
      { name: 'size', type: 'Shop:Size' },
      { name: 'quantity', type: 'Int' },
      { name: 'price', type: 'Numeric 10' },
      { name: 'note', type: 'Optional Text' },
      { name: 'tags', type: '[Text]' },
      { name: 'extras', type: 'TextMap Int' },
      { name: 'due', type: 'Date' },
      { name: 'placed', type: 'Time' },
      { name: 'pair', type: 'Shop:Pair Text Int' },
      { name: 'payment', type: 'Shop:Payment' },
    ]);
    // The signatories come through a top-level value, as damlc writes them.
    expect(order.signatoryFields).toEqual(['seller']);
    expect(order.observerFields).toEqual(['buyer']);
    expect(order.key).toEqual({ type: 'Party' });
    expect(order.example).toEqual({
      seller: '<Party>',
      buyer: '<Party>',
      item: '<Text>',
      size: 'Small',
      quantity: '0',
      price: '0.0',
      note: null,
      tags: [],
      extras: {},
      due: '1970-01-01',
      placed: '1970-01-01T00:00:00Z',
      pair: { first: '<Text>', second: '0' },
      payment: { tag: 'Cash', value: '0.0' },
    });
    expect(order.choices).toEqual([
      {
        name: 'Accept',
        consuming: true,
        argumentType: 'Shop:Accept',
        argumentFields: [
          { name: 'by', type: 'Party' },
          { name: 'at', type: 'Optional Time' },
        ],
        resultType: 'ContractId Shop:Order',
        example: { by: '<Party>', at: null },
      },
      {
        name: 'Peek',
        consuming: false,
        argumentType: 'Shop:Peek',
        argumentFields: [],
        resultType: 'Shop:Pair Text Int',
        example: {},
      },
    ]);
  });

  it('renders data types of every kind, type parameters kept', () => {
    const d = packageDefinitions(shop(), () => undefined);
    const byName = new Map(d.modules[0].dataTypes.map((t) => [t.name, t]));
    expect(byName.get('Size')).toEqual({ name: 'Size', params: [], kind: 'enum', constructors: ['Small', 'Large'] });
    expect(byName.get('Payment')).toEqual({
      name: 'Payment',
      params: [],
      kind: 'variant',
      constructors: [
        { name: 'Cash', type: 'Numeric 10' },
        { name: 'Card', type: 'Text' },
      ],
    });
    expect(byName.get('Pair')).toEqual({
      name: 'Pair',
      params: ['a', 'b'],
      kind: 'record',
      fields: [
        { name: 'first', type: 'a' },
        { name: 'second', type: 'b' },
      ],
    });
  });

  it('renders interfaces with their views, and types of other packages by package id', () => {
    const { api, token } = interfacePackages();
    const apiDefs = packageDefinitions(api, () => undefined);
    expect(apiDefs.modules[0].interfaces).toEqual([
      {
        interfaceId: `${api.id}:Api:Asset`,
        name: 'Asset',
        viewType: 'Api:AssetView',
        viewFields: [
          { name: 'holder', type: 'Party' },
          { name: 'amount', type: 'Numeric 10' },
          { name: 'label', type: 'Text' },
        ],
        methods: [],
        choices: [],
        requires: [],
      },
    ]);
    // The interface's own data type is not listed as a data type.
    expect(apiDefs.modules[0].dataTypes.map((t) => t.name)).toEqual(['AssetView']);
    const tokenDefs = packageDefinitions(token, (id) => (id === api.id ? api : undefined));
    const coin = tokenDefs.modules[0].templates.find((t) => t.name === 'Coin')!;
    expect(coin.implements).toEqual([`${api.id}:Api:Asset`]);
    expect(coin.signatoryFields).toEqual(['issuer']);
    expect(coin.observerFields).toEqual(['owner']);
    expect(packageSummary(token)).toEqual({
      packageId: token.id,
      name: 'iv-token',
      version: '1.0.0',
      languageVersion: '2.1',
      templates: 2,
      interfaces: 0,
    });
  });

  it('writes a placeholder for a type of a package not at hand', () => {
    const { api } = interfacePackages();
    const text = `
metadata ( 'uses-api' : '1.0.0' )
module M {
  record @serializable Wrap = { view: '${api.id}':Api:AssetView };
  template (this: Wrap) = {
    precondition True;
    signatories Nil @Party;
    observers Nil @Party;
  };
}`;
    const a = encodeArchive(parsePackage(text, { minor: '1' }));
    const pkg = decodeArchivePayload(a.payload, a.packageId);
    const viewType = `${api.id}:Api:AssetView`;
    const without = packageDefinitions(pkg, () => undefined).modules[0].templates[0];
    expect(without.fields).toEqual([{ name: 'view', type: viewType }]);
    expect(without.example).toEqual({ view: `<${viewType}>` });
    const withApi = packageDefinitions(pkg, (id) => (id === api.id ? api : undefined)).modules[0].templates[0];
    expect(withApi.example).toEqual({ view: { holder: '<Party>', amount: '0.0', label: '<Text>' } });
  });
});
