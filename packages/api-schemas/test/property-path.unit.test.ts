import { describe, expect, it } from 'vitest';
import { propertyPath } from '../src/property-path.js';

describe('propertyPath', () => {
  it('turns JSON pointers into the dotted paths of the publishing error body', () => {
    expect(propertyPath('/names/en-US')).toBe('names.en-US');
    expect(propertyPath('/attractions/0/source/id')).toBe('attractions[0].source.id');
    expect(propertyPath('/a~1b/c~0d')).toBe('a/b.c~d');
    expect(propertyPath('')).toBe('');
  });
});
