import { buyerFee } from '../../src/services/basket/pricing';
import { formatPence } from '../../src/domain/money/pence';
import { packingSlipCsv } from '../../src/services/orders/documents';
import type { OrderView } from '../../src/services/orders/order-view';

it('buyer fee: 2% rounded up, at least 25p, nothing for an empty basket', () => {
  expect(buyerFee(0)).toBe(0);
  expect(buyerFee(1)).toBe(25);
  expect(buyerFee(1250)).toBe(25);
  expect(buyerFee(1251)).toBe(26);
  expect(buyerFee(10_000)).toBe(200);
  expect(buyerFee(10_001)).toBe(201);
});

it('formats pence without floating point', () => {
  expect(formatPence(0)).toBe('£0.00');
  expect(formatPence(5)).toBe('£0.05');
  expect(formatPence(123_456)).toBe('£1234.56');
});

it('packing slip CSV quotes separators and defuses spreadsheet formulas', () => {
  const order = {
    id: 'o1',
    items: [
      {
        id: 'i1',
        urn: 'pokemon/base/1',
        item: { title: 'Charizard, "holo"' },
        condition: 'MINT',
        language: 'en',
        quantity: 2,
        price: 1000,
        status: 'ACCEPTED',
      },
      {
        id: 'i2',
        urn: 'pokemon/base/2',
        item: { title: '=HYPERLINK("x")' },
        condition: 'MINT',
        language: 'en',
        quantity: 1,
        price: 5,
        status: 'SHIPPED',
      },
    ],
  } as unknown as OrderView;
  expect(packingSlipCsv(order).split('\r\n')).toEqual([
    'order_id,item_id,urn,title,condition,language,quantity,price_pence,status',
    'o1,i1,pokemon/base/1,"Charizard, ""holo""",MINT,en,2,1000,ACCEPTED',
    `o1,i2,pokemon/base/2,"'=HYPERLINK(""x"")",MINT,en,1,5,SHIPPED`,
    '',
  ]);
});
