import { BackgroundPace, foreground } from '@wallet/kit';

describe('background work giving way to traffic', () => {
  it('goes in whole steps without rests while the service is idle, and in a share of them with rests while it is busy', async () => {
    const rests: number[] = [];
    const pace = new BackgroundPace({ busyShare: 0.1, busyPerSecond: 50 }, async (ms) => {
      rests.push(ms);
    });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(pace.busy).toBe(false);
    expect(pace.size(50_000)).toBe(50_000);
    await pace.rest(200);
    expect(rests).toEqual([]);

    foreground.note(60);
    expect(pace.busy).toBe(true);
    expect(pace.size(50_000)).toBe(5_000);
    await pace.rest(20);
    // 20 ms of work is a tenth of the time when followed by 180 ms of rest.
    expect(rests).toEqual([180]);

    // A second without traffic and it is idle again.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(pace.busy).toBe(false);
  });
});
