import { readRecords, recordToInput } from '../../src/services/imports/csv-rows';

const HEADER = 'urn,condition,language,price,quantity,offersEnabled,offersAutoAcceptAt,offersAutoDeclineBelow';

describe('listing import: offer settings columns', () => {
  it('reads the three columns into the listing offer settings; empty cells leave offers off', () => {
    const [on, off] = readRecords(
      `${HEADER}\npokemon/base/base1/4,NEAR_MINT,en,2500,1,true,2200,1500\npokemon/base/base1/4,MINT,en,900,2,,,\n`,
    );
    expect(recordToInput(on!, 2).input?.offers).toEqual({ enabled: true, autoAcceptAt: 2200, autoDeclineBelow: 1500 });
    expect(recordToInput(off!, 3).input?.offers).toEqual({ enabled: false, autoAcceptAt: null, autoDeclineBelow: null });
  });

  it('names the CSV column of a bad offer cell', () => {
    const [bad, missing] = readRecords(
      `${HEADER}\npokemon/base/base1/4,MINT,en,900,2,yes please,,\npokemon/base/base1/4,MINT,en,900,2,,500,\n`,
    );
    expect(recordToInput(bad!, 2).errors).toEqual([{ row: 2, column: 'offersEnabled', message: expect.stringContaining('boolean') }]);
    expect(recordToInput(missing!, 3).errors).toEqual([{ row: 3, column: 'offersEnabled', message: expect.stringContaining('required') }]);
  });
});
