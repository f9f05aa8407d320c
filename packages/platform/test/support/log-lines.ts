import { PassThrough } from 'node:stream';

/** A stream for a logger's `destination`, and the JSON lines written to it, parsed. */
export function logLines() {
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n'))
      if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  return { stream, lines };
}
