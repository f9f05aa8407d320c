import { describe, expect, it } from 'vitest';
import { KeyedMutex } from '../../src/store/keyed-mutex.js';

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedMutex', () => {
  it('runs sections of one key one after the other, in call order', async () => {
    const sut = new KeyedMutex();
    const trace: string[] = [];
    const section = (name: string, ms: number) => async () => {
      trace.push(`${name}:start`);
      await tick(ms);
      trace.push(`${name}:end`);
      return name;
    };

    const results = await Promise.all([
      sut.run('k', section('a', 20)),
      sut.run('k', section('b', 1)),
      sut.run('k', section('c', 5)),
    ]);

    expect(results).toEqual(['a', 'b', 'c']);
    expect(trace).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
    expect(sut.size).toBe(0);
  });

  it('lets different keys run concurrently', async () => {
    const sut = new KeyedMutex();
    const trace: string[] = [];
    await Promise.all([
      sut.run('x', async () => {
        trace.push('x:start');
        await tick(20);
        trace.push('x:end');
      }),
      sut.run('y', async () => {
        trace.push('y:start');
        await tick(1);
        trace.push('y:end');
      }),
    ]);
    expect(trace).toEqual(['x:start', 'y:start', 'y:end', 'x:end']);
  });

  it('releases the key when a section throws', async () => {
    const sut = new KeyedMutex();
    await expect(sut.run('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(sut.run('k', async () => 'next')).resolves.toBe('next');
    expect(sut.size).toBe(0);
  });
});
