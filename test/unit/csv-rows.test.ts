import { hasMoreDataLinesThan } from '../../src/services/imports/csv-rows';

describe('hasMoreDataLinesThan (the import line cap)', () => {
  const header = 'urn,condition,language,price,quantity';

  it('counts the lines after the header, the last one with or without its newline', () => {
    expect(hasMoreDataLinesThan(`${header}\na\nb`, 2)).toBe(false);
    expect(hasMoreDataLinesThan(`${header}\na\nb\n`, 2)).toBe(false);
    expect(hasMoreDataLinesThan(`${header}\na\nb\nc`, 2)).toBe(true);
    expect(hasMoreDataLinesThan(`${header}\r\na\r\nb\r\nc\r\n`, 2)).toBe(true);
  });

  it('skips empty lines, as the parser does, but counts lines of empty cells', () => {
    expect(hasMoreDataLinesThan(`${header}\n\n\r\na\n\nb\r\n\r\n`, 2)).toBe(false);
    expect(hasMoreDataLinesThan(`${header}\n,,,,\n,,,,\n,,,,\n`, 2)).toBe(true);
  });

  it('takes a header alone, or nothing, as no lines', () => {
    expect(hasMoreDataLinesThan(header, 0)).toBe(false);
    expect(hasMoreDataLinesThan('', 0)).toBe(false);
  });

  it('counts each line of a quoted cell that spans lines (an over-count, never an under-count)', () => {
    expect(hasMoreDataLinesThan(`${header}\nx,MINT,en,1,1,"two\nlines"\n`, 1)).toBe(true);
  });
});
