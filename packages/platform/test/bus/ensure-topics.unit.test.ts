import { describe, expect, it } from 'vitest';
import { waitForLeaders } from '../../src/bus/ensure-topics.js';

type Metadata = Awaited<ReturnType<Parameters<typeof waitForLeaders>[0]['fetchTopicMetadata']>>;

const protocolError = (type: string) => Object.assign(new Error(type), { type });
const metadata = (leader: number): Metadata => ({
  topics: [
    {
      name: 't',
      partitions: [{ partitionId: 0, leader, replicas: [1], isr: [1], partitionErrorCode: 0 }],
    },
  ],
});

/** A fake admin answering the given steps in order (an Error is thrown). */
const adminAnswering = (steps: Array<Metadata | Error>) => {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    fetchTopicMetadata: async () => {
      const step = steps[Math.min(calls++, steps.length - 1)]!;
      if (step instanceof Error) throw step;
      return step;
    },
  };
};

describe('waitForLeaders', () => {
  it('waits through "unknown topic" and leaderless partitions of a topic just created', async () => {
    const admin = adminAnswering([
      protocolError('UNKNOWN_TOPIC_OR_PARTITION'),
      protocolError('LEADER_NOT_AVAILABLE'),
      metadata(-1),
      metadata(1),
    ]);
    await waitForLeaders(admin, ['t']);
    expect(admin.calls).toBe(4);
  });

  it('fails at once on any other error', async () => {
    const admin = adminAnswering([protocolError('TOPIC_AUTHORIZATION_FAILED')]);
    await expect(waitForLeaders(admin, ['t'])).rejects.toThrow('TOPIC_AUTHORIZATION_FAILED');
    expect(admin.calls).toBe(1);
  });

  it('gives up with the last reason after the timeout', async () => {
    const admin = adminAnswering([protocolError('UNKNOWN_TOPIC_OR_PARTITION')]);
    await expect(waitForLeaders(admin, ['t'], 200)).rejects.toThrow('UNKNOWN_TOPIC_OR_PARTITION');
    expect(admin.calls).toBeGreaterThan(1);
  });
});
