import { logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaLogCreator } from '../../src/bus/kafka-log.js';

describe('kafkaLogCreator', () => {
  it('routes kafkajs entries to the matching logger level with kafkajs context as fields', () => {
    const lines: [string, object, string | undefined][] = [];
    const at = (level: string) => (fields: object, message?: string) =>
      lines.push([level, fields, message]);
    const sut = kafkaLogCreator({
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
    })(logLevel.WARN);

    sut({
      namespace: 'Consumer',
      level: logLevel.ERROR,
      label: 'ERROR',
      log: { timestamp: 'x', message: 'Crash', groupId: 'g' },
    });
    sut({
      namespace: 'Producer',
      level: logLevel.WARN,
      label: 'WARN',
      log: { timestamp: 'x', message: 'slow' },
    });

    expect(lines).toEqual([
      ['error', { component: 'kafkajs', namespace: 'Consumer', groupId: 'g' }, 'Crash'],
      ['warn', { component: 'kafkajs', namespace: 'Producer' }, 'slow'],
    ]);
  });
});
