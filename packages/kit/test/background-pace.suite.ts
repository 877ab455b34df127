import { BackgroundPace, foreground } from '@wallet/kit';

const idleSecond = () => new Promise((resolve) => setTimeout(resolve, 1_100));

describe('background work giving way to traffic', () => {
  it('goes in steps growing to what fits a short while without rests while the service is idle, and in a share of them with rests while it is busy', async () => {
    const rests: number[] = [];
    const pace = new BackgroundPace({ busyShare: 0.1, busyPerSecond: 50 }, async (ms) => {
      rests.push(ms);
    });
    await idleSecond();
    expect(pace.busy).toBe(false);
    const steps = pace.steps(50_000);
    // The first step is small; each grows fourfold while the measured pace allows, up to a full step.
    expect(steps.size()).toBe(5_000);
    await steps.after(5_000, 5);
    expect(steps.size()).toBe(20_000);
    await steps.after(20_000, 20);
    expect(steps.size()).toBe(50_000);
    // A slow step (a big history, a loaded machine) shrinks the next to what fits 150 ms.
    await steps.after(50_000, 500);
    expect(steps.size()).toBe(15_000);
    expect(rests).toEqual([]);

    foreground.note(60);
    expect(pace.busy).toBe(true);
    // Busy: the share's 5,000, or what takes 10 ms at the pace measured (100 a millisecond) when that is fewer.
    expect(steps.size()).toBe(1_000);
    await steps.after(1_000, 20);
    // 20 ms of work is a tenth of the time when followed by 180 ms of rest.
    expect(rests).toEqual([180]);
    expect(steps.size()).toBe(500);
    await steps.after(500, 0.1);
    expect(steps.size()).toBe(5_000);

    // A second without traffic and it is idle again.
    await idleSecond();
    expect(pace.busy).toBe(false);
  });
});
