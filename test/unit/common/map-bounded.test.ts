import { mapBounded } from '../../../src/common/map-bounded';

describe('mapBounded', () => {
  it('keeps at most `limit` calls outstanding and returns results in item order', async () => {
    let outstanding = 0;
    let most = 0;
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const results = await mapBounded(
      items,
      async (n) => {
        outstanding++;
        most = Math.max(most, outstanding);
        // Later items finish first, so order comes from the index, not from completion.
        await new Promise((resolve) => setTimeout(resolve, n % 3));
        outstanding--;
        return n * 2;
      },
      16,
    );
    expect(most).toBe(16);
    expect(results).toEqual(items.map((n) => n * 2));
  });

  it('rejects with the first failure, as Promise.all', async () => {
    await expect(mapBounded([1, 2, 3], async (n) => {
      if (n === 2) throw new Error('two');
      return n;
    })).rejects.toThrow('two');
  });

  it('maps nothing to nothing', async () => {
    expect(await mapBounded([], async () => 1)).toEqual([]);
  });
});
