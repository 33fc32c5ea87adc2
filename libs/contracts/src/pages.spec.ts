import { toPage } from './pages';

describe('toPage', () => {
  const options = {
    limit: 2,
    after: 7,
    cursor: (row: { id: number }) => row.id,
    items: (rows: Array<{ id: number }>) => rows.map((row) => `#${row.id}`),
  };

  it('keeps the first `limit` rows, the last one the cursor, and tells that more follow from the row past the page', async () => {
    const page = await toPage('events', [{ id: 8 }, { id: 9 }, { id: 10 }], options);
    expect(JSON.stringify(page)).toBe('{"events":["#8","#9"],"next_after":9,"more":true}');
  });

  it('says no more when the rows fit the page', async () => {
    expect(await toPage('events', [{ id: 8 }, { id: 9 }], options)).toEqual({ events: ['#8', '#9'], next_after: 9, more: false });
  });

  it('gives `after` back on an empty page', async () => {
    expect(await toPage('events', [], options)).toEqual({ events: [], next_after: 7, more: false });
  });

  it('never maps the row past the page', async () => {
    const mapped: number[] = [];
    await toPage('items', [{ id: 1 }, { id: 2 }, { id: 3 }], { ...options, items: (rows) => rows.map((row) => mapped.push(row.id)) });
    expect(mapped).toEqual([1, 2]);
  });
});
